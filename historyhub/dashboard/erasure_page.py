"""The erasure page of a project's settings, for its admins: the sessions whose metadata holds a value, counted,
then deleted on a confirmed POST (docs/data.md, "Erasure")."""

from django import forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render

from historyhub.dashboard.access import admins_only, project_page
from historyhub.data import erasure
from historyhub.lib.errors import DomainError


class ErasureForm(forms.Form):
    metadata_key = forms.CharField(max_length=200, label="Metadata key", strip=False)
    metadata_value = forms.CharField(
        max_length=10_000, label="Value", strip=False, help_text="Matched exactly, as a string."
    )


@project_page
def erasure_page(request):
    """Find the sessions whose metadata holds a value (GET), show how many will go, delete them on a confirmed
    POST. The count is shown before anything is deleted; the POST deletes whatever matches when it runs."""
    admins_only(request)
    project = request.project
    if request.method not in ("GET", "POST"):
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    form = ErasureForm(request.POST if request.method == "POST" else request.GET or None)
    found, status = None, 200
    if form.is_bound and form.is_valid():
        key, value = form.cleaned_data["metadata_key"], form.cleaned_data["metadata_value"]
        try:
            if request.method == "POST":
                deleted = erasure.erase(project.pk, key, value, actor=request.user.get_username())
                messages.success(request, f"{deleted} sessions were erased.")
                return redirect("dashboard:erasure", project_id=project.pk)
            found = erasure.count(project.pk, key, value)
        except DomainError as error:
            form.add_error(None, error.message)
    if form.errors:
        status = 422 if request.method == "POST" else 400
    return render(request, "dashboard/erasure.html", {"form": form, "found": found}, status=status)

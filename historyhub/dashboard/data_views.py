"""The project's data pages for its admins: erasure and the audit log (docs/data.md)."""

import csv
from datetime import datetime, time, timedelta

from django import forms
from django.contrib import messages
from django.db.models import Q
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from historyhub.dashboard.views import admins_only, page_context, project_page
from historyhub.data import audit, erasure
from historyhub.history import paging
from historyhub.history.errors import DomainError

AUDIT_PAGE_SIZE = 50
CSV_CHUNK = 1000
# A spreadsheet runs a cell that starts with one of these as a formula: such cells get a leading quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


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


class AuditFilterForm(forms.Form):
    actor = forms.CharField(max_length=200, required=False)
    action = forms.CharField(max_length=64, required=False)
    since = forms.DateField(required=False, label="From (day)")
    until = forms.DateField(required=False, label="To (day, included)")
    page = forms.IntegerField(min_value=1, max_value=1_000_000, required=False)

    def filters(self):
        data = self.cleaned_data
        day_start = timezone.get_current_timezone()
        since = datetime.combine(data["since"], time.min, day_start) if data["since"] else None
        until = datetime.combine(data["until"] + timedelta(days=1), time.min, day_start) if data["until"] else None
        return {"actor": data["actor"], "action": data["action"], "since": since, "until": until}


@require_GET
@project_page
def audit_log(request):
    """The project's audit log for its admins, newest first, filtered by actor, action and days; ``?format=csv``
    downloads every row the filters select."""
    admins_only(request)
    form = AuditFilterForm(request.GET)
    if not form.is_valid():
        return render(request, "dashboard/audit.html", {"form": form, "actions": _actions()}, status=400)
    rows = audit.entries(request.project.pk, **form.filters())
    if request.GET.get("format") == "csv":
        response = StreamingHttpResponse(_csv_lines(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="audit-{request.project.pk}.csv"'
        return response
    paged = paging.page_of(rows, form.cleaned_data["page"] or 1, AUDIT_PAGE_SIZE)
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "actions": _actions(), "query": query.urlencode(), **page_context(paged)}
    return render(request, "dashboard/audit.html", context)


def _actions():
    return sorted(value for name, value in vars(audit.Action).items() if not name.startswith("_"))


class _Echo:
    def write(self, value):
        return value


def _csv_lines(rows):
    writer = csv.writer(_Echo())
    yield writer.writerow(["at", "actor", "action", "target", "details"])
    after = None
    while True:
        # Read in chunks, newest first as the page shows them, from where the last chunk ended.
        chunk = rows if after is None else rows.filter(Q(at__lt=after.at) | Q(at=after.at, pk__lt=after.pk))
        batch = list(chunk.order_by("-at", "-pk")[:CSV_CHUNK])
        if not batch:
            return
        for entry in batch:
            cells = [entry.at.isoformat(), entry.actor, entry.action, entry.target, entry.details_json]
            yield writer.writerow([f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell for cell in cells])
        after = batch[-1]

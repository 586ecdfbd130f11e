"""Where a person lands: ``/``, ``/sessions/<id>/`` and ``/approvals/`` open that page of the person's current
project (the one last opened, else the first they belong to)."""

from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from historyhub.dashboard.access import current_project, login_required


def in_current_project(view_name):
    """The view that sends a person to ``view_name`` of their current project, keeping the query."""

    @require_GET
    @login_required
    def view(request, **kwargs):
        project = current_project(request)
        if project is None:
            return render(request, "dashboard/no_project.html", status=403)
        url = reverse(f"dashboard:{view_name}", kwargs={"project_id": project.pk, **kwargs})
        query = request.META.get("QUERY_STRING")
        return redirect(f"{url}?{query}" if query else url)

    return view


home = in_current_project("sessions")
current_session = in_current_project("session")
current_approvals = in_current_project("approvals")

"""The project's audit log page for its admins, and its CSV download (docs/data.md, "Audit log")."""

import csv
from datetime import datetime, time, timedelta

from django import forms
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from historyhub.audit import chain
from historyhub.audit import log as audit_log
from historyhub.dashboard.access import admins_only, project_page
from historyhub.dashboard.pagination import page_context
from historyhub.lib import paging, spreadsheets
from historyhub.lib.times import format_time

AUDIT_PAGE_SIZE = 50
CSV_CHUNK = 1000


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
def audit_page(request):
    """The project's audit log for its admins, newest first, filtered by actor, action and days; ``?format=csv``
    downloads every row the filters select; ``?verify=1`` also says whether the project's whole chain is intact."""
    admins_only(request)
    form = AuditFilterForm(request.GET)
    if not form.is_valid():
        return render(
            request, "dashboard/audit.html", {"form": form, "actions": audit_log.actions(request.project)}, status=400
        )
    rows = audit_log.entries(request.project.pk, **form.filters())
    if request.GET.get("format") == "csv":
        response = StreamingHttpResponse(_csv_lines(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="audit-{request.project.pk}.csv"'
        return response
    paged = paging.page_of(rows, form.cleaned_data["page"] or 1, AUDIT_PAGE_SIZE)
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "actions": audit_log.actions(request.project),
        "query": query.urlencode(),
        "verdict": chain.verify(request.project.pk) if request.GET.get("verify") else None,
        **page_context(paged),
    }
    return render(request, "dashboard/audit.html", context)


class _Echo:
    def write(self, value):
        return value


def _csv_lines(rows):
    writer = csv.writer(_Echo())
    yield writer.writerow(["seq", "at", "actor", "action", "target", "details", "prevHash", "hash"])
    after = None
    while True:
        # Read in chunks, newest first as the page shows them, from where the last chunk ended.
        chunk = rows if after is None else rows.filter(seq__lt=after)
        batch = list(chunk.order_by("-seq")[:CSV_CHUNK])
        if not batch:
            return
        for entry in batch:
            # Each value as the audit API gives it, so the row's hash can be recomputed from the file.
            cells = [entry.actor, entry.action, entry.target, entry.details_json]
            defused = [spreadsheets.defused(cell) for cell in cells]
            yield writer.writerow([entry.seq, format_time(entry.at), *defused, entry.prev_hash, entry.hash])
        after = batch[-1].seq

"""The Insights page of a project (docs/insights.md, "The page"): charts drawn on the server as SVG, a table behind
each, each table downloadable as CSV, the range and filters in the URL. Every member may see it."""

import csv
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from historyhub.dashboard.access import admins_only, project_page
from historyhub.insights import alerts, approvals, charts, ranges, usage
from historyhub.insights.charts import Table
from historyhub.insights.models import AlertKind
from historyhub.insights.ranges import Filters, Range
from historyhub.lib import spreadsheets
from historyhub.lib.times import format_time
from historyhub.projects import access
from historyhub.projects.models import Role

PRESETS = [("24h", "Last 24 hours"), ("7d", "Last 7 days"), ("30d", "Last 30 days"), ("custom", "Custom dates")]
# The range a page without one shows, and its range field says so.
DEFAULT_RANGE = "7d"


class InsightsFilters(forms.Form):
    range = forms.ChoiceField(required=False, choices=PRESETS, label="Range")
    since = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label="To (inclusive)", widget=forms.DateInput(attrs={"type": "date"}))
    agent = forms.CharField(required=False, max_length=200)
    action = forms.CharField(required=False, max_length=200)
    policy = forms.CharField(required=False, max_length=200)
    decider = forms.CharField(required=False, max_length=200)
    model = forms.CharField(required=False, max_length=200)

    def clean(self):
        data = super().clean()
        if data.get("range") == "custom":
            since, until = data.get("since"), data.get("until")
            if not since or not until:
                raise forms.ValidationError("A custom range needs both a From and a To date.")
            if since > until:
                raise forms.ValidationError("From must be on or before To.")
        return data

    def chosen(self, now: datetime) -> Range:
        data = self.cleaned_data
        preset = data.get("range") or DEFAULT_RANGE
        if preset == "custom":
            since = datetime.combine(data["since"], time(), tzinfo=UTC)
            until = datetime.combine(data["until"], time(), tzinfo=UTC) + timedelta(days=1)
            return ranges.make(since, until, "hour" if until - since <= timedelta(days=2) else "day", now)
        return ranges.make(now - ranges.SPANS[preset], now, "hour" if preset == "24h" else "day", now)

    def filters(self) -> Filters:
        data = self.cleaned_data
        return Filters(**{name: data.get(name) or "" for name in ("agent", "action", "policy", "decider", "model")})


@require_GET
@project_page
def insights_page(request):
    query = request.GET.copy()
    if not query.get("range"):
        query["range"] = DEFAULT_RANGE
    form = InsightsFilters(query)
    if not form.is_valid():
        return render(request, "dashboard/insights.html", {"form": form, "tables": []}, status=400)
    now = timezone.now()
    chosen, filters = form.chosen(now), form.filters()
    project_id = request.project.pk
    found = approvals.compute(project_id, chosen, filters, now)
    spent = usage.compute(project_id, chosen, filters)
    bands = approvals.waiting_by_age(project_id, filters, now)
    tables = _tables(request, chosen, filters, found, spent, bands)
    wanted = request.GET.get("csv")
    if wanted:
        table = next((table for table in tables if table.key == wanted), None)
        if table is None:
            raise Http404("No such table.")
        return _csv(table, request.project.pk)
    shown = [(table, charts.draw(table), _csv_link(request, table)) for table in tables]
    context = {
        "form": form,
        "chosen": chosen,
        "found": found,
        "shown": shown,
        "currencies": spent.currencies,
        "alert_rules": alerts.listing(project_id),
        "alert_form": AlertForm() if access.grants(request.role, Role.ADMIN) else None,
    }
    return render(request, "dashboard/insights.html", context)


class AlertForm(forms.Form):
    kind = forms.ChoiceField(choices=AlertKind.choices, label="Alert when")
    threshold = forms.DecimalField(min_value=0, max_digits=14, decimal_places=4, label="N")
    action = forms.CharField(
        required=False, max_length=200, label="Action", help_text="Only actions of this name (empty: all)."
    )


@require_POST
@project_page
def alert_rules(request):
    """Add (``add``) or delete (``delete`` with ``rule``) an alert rule of the project: its admins only."""
    admins_only(request)
    actor = request.user.get_username()
    if "delete" in request.POST:
        try:
            rule_id = int(request.POST.get("rule", ""))
        except ValueError:
            rule_id = 0
        if not alerts.delete(request.project.pk, rule_id, actor):
            raise Http404("No such alert.")
        messages.success(request, "The alert was deleted.")
        return redirect(_alerts_anchor(request))
    form = AlertForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(f"{name}: {' '.join(found)}" for name, found in form.errors.items())
        return HttpResponse(f"The alert was not added: {errors}", status=400, content_type="text/plain")
    data = form.cleaned_data
    alerts.add(request.project.pk, data["kind"], data["threshold"], data["action"], actor)
    messages.success(request, "The alert was added; the next sweep compares it.")
    return redirect(_alerts_anchor(request))


def _alerts_anchor(request) -> str:
    return reverse("dashboard:insights", kwargs={"project_id": request.project.pk}) + "#alerts"


def _inbox(request, filters: Filters, **extra: str) -> str:
    """The approvals inbox with the page's filters and ``extra`` (inbox_page's names): the actions a bar counts."""
    query = {"agent": filters.agent, "policy": filters.policy, "tool": filters.action, **extra}
    url = reverse("dashboard:approvals", kwargs={"project_id": request.project.pk})
    return f"{url}?{urlencode({key: value for key, value in query.items() if value})}"


def _stopped(request, filters: Filters, state: str, since: datetime, until: datetime) -> str:
    """The inbox listing the actions in ``state`` (dashboard.inbox_states) that stopped waiting in [since, until):
    the very ones a number of the range counts, the decider filter included."""
    return _inbox(request, filters, state=state, decider=filters.decider, **{"from": _iso(since), "to": _iso(until)})


def _in_bucket(request, filters: Filters, state: str, chosen: Range, start: datetime) -> str:
    """The same for one bucket of the range, cut to the range at its ends as the numbers are."""
    return _stopped(request, filters, state, max(start, chosen.since), min(start + chosen.step, chosen.until))


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _sessions(request, agent: str) -> str:
    return f"{reverse('dashboard:sessions', kwargs={'project_id': request.project.pk})}?{urlencode({'agent': agent})}"


def _tables(request, chosen, filters, found, spent, bands) -> list[Table]:
    at = [format_time(row.at) for row in found.series]
    return [
        Table(
            "time-to-decision",
            "Time to decision (seconds)",
            ["Bucket", "Decided", "p50", "p90"],
            [[stamp, row.decided, row.p50, row.p90] for stamp, row in zip(at, found.series, strict=True)],
            charted=[2, 3],
            links=[_in_bucket(request, filters, "decided", chosen, row.at) for row in found.series],
            description="Median and 90th percentile of the time from opening to the final decision, by when decided. "
            "Each bucket opens the inbox with the actions decided in it.",
        ),
        Table(
            "actions-over-time",
            "Actions opened, decided and expired",
            ["Bucket", "Opened", "Decided", "Expired"],
            [[stamp, row.opened, row.decided, row.expired] for stamp, row in zip(at, found.series, strict=True)],
            charted=[1, 2, 3],
            links=[_in_bucket(request, filters, "closed", chosen, row.at) for row in found.series],
            description="Each bucket opens the inbox with the actions decided or expired in it.",
        ),
        Table(
            "outcomes",
            "Outcomes",
            ["Outcome", "Actions"],
            [[name, count] for name, count in found.outcomes.items()],
            charted=[1],
            kind="bars",
            links=[_stopped(request, filters, name, chosen.since, chosen.until) for name in found.outcomes],
            description="Each bar opens the inbox with the actions of that outcome.",
        ),
        Table(
            "by-action",
            "Outcomes per action",
            ["Action", "Decided or expired", "Approved", "Edited", "Rejected", "Reject rate", "p50 (seconds)"],
            [
                [row.name, row.count, row.approved, row.edited, row.rejected, row.rate(row.rejected), row.p50]
                for row in found.by_action
            ],
            charted=[1],
            kind="bars",
            links=[
                _stopped(request, replace(filters, action=row.name), "closed", chosen.since, chosen.until)
                for row in found.by_action
            ],
            description="Each bar opens the inbox with that action's decided and expired ones.",
        ),
        Table(
            "waiting-now",
            "Waiting now, by age",
            ["Age", "Waiting", "Escalated"],
            [[band.label, band.count, band.escalated] for band in bands],
            charted=[1],
            kind="bars",
            links=[_inbox(request, filters, age=band.age_filter) for band in bands],
            description="Each bar opens the inbox with the matching age filter.",
        ),
        Table(
            "deciders",
            "Decisions per decider",
            ["Decider", "Decisions", "Median (seconds)"],
            [[row.by, row.count, row.p50] for row in found.by_decider],
            charted=[1],
            kind="bars",
            links=[
                _stopped(request, replace(filters, decider=row.by), "decided", chosen.since, chosen.until)
                for row in found.by_decider
            ],
            description="Each bar opens the inbox with that decider's decisions.",
        ),
        Table(
            "activity",
            "Sessions, items and client actions",
            ["Bucket", "Sessions", "Items", "Client actions"],
            [[format_time(row.at), row.sessions, row.items, row.client_actions] for row in spent.series],
            charted=[1, 2, 3],
        ),
        Table(
            "tokens",
            "Tokens and estimated cost",
            ["Bucket", "Input tokens", "Output tokens", "Cost"],
            [
                [format_time(row.at), row.tokens.input, row.tokens.output, round(row.tokens.cost, 6)]
                for row in spent.series
            ],
            charted=[1, 2],
        ),
        Table(
            "tokens-by-agent",
            "Tokens per agent",
            ["Agent", "Tokens", "Input tokens", "Output tokens", "Cost"],
            [
                [name, tokens.input + tokens.output, tokens.input, tokens.output, round(tokens.cost, 6)]
                for name, tokens in sorted(spent.by_agent.items())
            ],
            charted=[1],
            kind="bars",
            links=[_sessions(request, name) for name in sorted(spent.by_agent)],
            description="Each bar opens the agent's sessions.",
        ),
        Table(
            "tokens-by-model",
            "Tokens per model",
            ["Model", "Tokens", "Input tokens", "Output tokens", "Cost"],
            [
                [name or "(unnamed)", tokens.input + tokens.output, tokens.input, tokens.output, round(tokens.cost, 6)]
                for name, tokens in sorted(spent.by_model.items())
            ],
            charted=[1],
            kind="bars",
        ),
    ]


def _csv_link(request, table: Table) -> str:
    query = request.GET.copy()
    query["csv"] = table.key
    return f"?{query.urlencode()}"


def _csv(table: Table, project_id: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="insights-{project_id}-{table.key}.csv"'
    writer = csv.writer(response)
    writer.writerow(table.headers)
    for row in table.rows:
        cells = ["" if cell is None else str(cell) for cell in row]
        writer.writerow([spreadsheets.defused(cell) for cell in cells])
    return response

"""How approvals are going in a project: time to decision, outcomes, what waits now, who decides
(docs/insights.md, "Approvals"). Every query starts from the project's own actions."""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import Case, CharField, Count, DateTimeField, F, Min, Q, QuerySet, Value, When
from django.db.models.functions import Trunc

from historyhub.approvals.policies import governed_by
from historyhub.history import usage_hours
from historyhub.history.models import DECIDED, ClientAction, ClientActionStatus, Decision
from historyhub.insights import percentiles, scope, usage
from historyhub.insights.percentiles import Durations
from historyhub.insights.ranges import Filters, Range

OUTCOMES = ("approved", "edited", "rejected", "answered", "dismissed", "expired")
# An approve whose approved arguments differ from the requested ones is an edit (approvals.decisions.kind_of);
# both digests are kept on the row, so the database tells them apart.
EDITED = Q(decision=Decision.EDIT) | (
    Q(decision=Decision.APPROVE, approved_arguments_digest__isnull=False)
    & ~Q(approved_arguments_digest=F("arguments_digest"))
)
OUTCOME = Case(
    When(EDITED, then=Value("edited")),
    When(decision=Decision.APPROVE, then=Value("approved")),
    When(decision=Decision.REJECT, then=Value("rejected")),
    When(decision=Decision.RESPOND, then=Value("answered")),
    When(decision=Decision.DISMISS, then=Value("dismissed")),
    output_field=CharField(),
)
# The waiting-time bands of the page's "waiting now" chart, each with the inbox's age filter that shows it.
AGE_BANDS = (
    ("under 1 hour", 0, 3600, ""),
    ("1 hour to 1 day", 3600, 86400, "1h"),
    ("1 to 7 days", 86400, 604800, "1d"),
)
OLDEST_BAND = ("over 7 days", 604800, None, "1w")


@dataclass(frozen=True)
class ActionRow:
    name: str
    count: int
    approved: int
    edited: int
    rejected: int
    p50: float | None

    def rate(self, part: int) -> float:
        return round(part / self.count, 4) if self.count else 0.0


@dataclass(frozen=True)
class DeciderRow:
    by: str
    count: int
    p50: float | None


@dataclass(frozen=True)
class Bucket:
    at: datetime
    opened: int
    decided: int
    expired: int
    p50: float | None
    p90: float | None


@dataclass(frozen=True)
class Waiting:
    count: int
    oldest_seconds: float | None
    escalated: int


@dataclass(frozen=True)
class AgeBand:
    label: str
    count: int
    escalated: int
    age_filter: str


@dataclass
class ApprovalInsights:
    range: Range
    decided: Durations
    outcomes: dict[str, int]
    waiting_now: Waiting
    by_action: list[ActionRow] = field(default_factory=list)
    by_decider: list[DeciderRow] = field(default_factory=list)
    series: list[Bucket] = field(default_factory=list)


def of_project(project_id: str, filters: Filters) -> QuerySet:
    """The project's actions that the filters let through; the decider filter is applied to decisions only."""
    actions = ClientAction.objects.filter(scope.sessions_of(project_id))
    if filters.agent:
        actions = actions.filter(session__agent=filters.agent)
    if filters.action:
        actions = actions.filter(name=filters.action)
    if filters.policy:
        actions = actions.filter(governed_by(filters.policy))
    return actions


def decided_in(actions: QuerySet, chosen: Range, filters: Filters) -> QuerySet:
    """Actions whose final decision fell in the range (``from`` inclusive, ``to`` exclusive)."""
    decided = actions.filter(DECIDED, resolved_at__gte=chosen.since, resolved_at__lt=chosen.until)
    return decided.filter(resolved_by=filters.decider) if filters.decider else decided


def expired_in(actions: QuerySet, chosen: Range, now: datetime) -> QuerySet:
    """Actions that stopped waiting unanswered in the range: expired by the sweep (at their expiresAt, which it
    writes as resolvedAt), or past their expiresAt and not yet swept."""
    stopped = Case(
        When(status=ClientActionStatus.WAITING, then=F("expires_at")),
        default=F("resolved_at"),
        output_field=DateTimeField(),
    )
    expired = actions.filter(
        Q(status=ClientActionStatus.EXPIRED) | Q(status=ClientActionStatus.WAITING, expires_at__lte=now)
    )
    return expired.annotate(stopped=stopped).filter(stopped__gte=chosen.since, stopped__lt=chosen.until)


def compute(project_id: str, chosen: Range, filters: Filters, now: datetime) -> ApprovalInsights:
    """Every number of the range from two reads of it, whatever the number of groupings: the decided actions once
    (counts and percentiles per action, decider, bucket and outcome), the expired ones once."""
    actions = of_project(project_id, filters)
    measured = percentiles.grouping_sets(
        decided_in(actions, chosen, filters).values(
            "name",
            "resolved_by",
            outcome=OUTCOME,
            at=Trunc("resolved_at", chosen.bucket, tzinfo=UTC),
            seconds=percentiles.seconds_between("created_at", "resolved_at"),
        ),
        "seconds",
        (),
        ("name",),
        ("resolved_by",),
        ("at",),
        ("name", "outcome"),
    )
    expired: dict[tuple[str, datetime], int] = {
        (name, _utc(at)): count
        for name, at, count in expired_in(actions, chosen, now)
        .annotate(at=Trunc("stopped", chosen.bucket, tzinfo=UTC))
        .values_list("name", "at")
        .annotate(n=Count("pk"))
        .order_by()
    }
    outcomes = dict.fromkeys(OUTCOMES, 0)
    for (_, outcome), durations in measured[("name", "outcome")].items():
        outcomes[outcome] += durations.count
    outcomes["expired"] = sum(expired.values())
    return ApprovalInsights(
        range=chosen,
        decided=measured[()].get((), percentiles.NONE),
        outcomes=outcomes,
        waiting_now=waiting_now(actions, now),
        by_action=by_action(measured[("name", "outcome")], measured[("name",)], expired),
        by_decider=by_decider(measured[("resolved_by",)]),
        series=series(opened_in(project_id, actions, chosen, filters), measured[("at",)], expired, chosen),
    )


def by_action(
    outcomes: dict[tuple, Durations], medians: dict[tuple, Durations], expired: dict[tuple[str, datetime], int]
) -> list[ActionRow]:
    """Per action name: decided plus expired, its outcomes and median time to decision; the busiest first."""
    counts: dict[str, dict[str, int]] = {}
    for (name, outcome), durations in outcomes.items():
        counts.setdefault(name, {})[outcome] = durations.count
    for (name, _), count in expired.items():
        named = counts.setdefault(name, {})
        named["expired"] = named.get("expired", 0) + count
    found = [
        ActionRow(
            name=name,
            count=sum(outcomes.values()),
            approved=outcomes.get("approved", 0),
            edited=outcomes.get("edited", 0),
            rejected=outcomes.get("rejected", 0),
            p50=medians.get((name,), percentiles.NONE).p50,
        )
        for name, outcomes in counts.items()
    ]
    return sorted(found, key=lambda row: (-row.count, row.name))


def by_decider(stats: dict[tuple, Durations]) -> list[DeciderRow]:
    rows = [DeciderRow(by, durations.count, durations.p50) for (by,), durations in stats.items()]
    return sorted(rows, key=lambda row: (-row.count, row.by))


def opened_in(project_id: str, actions: QuerySet, chosen: Range, filters: Filters) -> dict[datetime, int]:
    """Actions opened per bucket: from the usage tallies when only an agent filters them (they count actions per
    agent, not per name or policy), else from the rows."""
    if not filters.action and not filters.policy:
        return usage.counted_by(project_id, chosen, filters.agent, usage_hours.CLIENT_ACTIONS)
    opened = actions.filter(created_at__gte=chosen.since, created_at__lt=chosen.until)
    return _count_by(opened, "created_at", chosen.bucket)


def series(
    opened_by: dict[datetime, int],
    decided: dict[tuple, Durations],
    expired: dict[tuple[str, datetime], int],
    chosen: Range,
) -> list[Bucket]:
    """Every bucket of the range, empty ones included, so a chart's bars stand where their time is."""
    expired_by: dict[datetime, int] = {}
    for (_, at), count in expired.items():
        expired_by[at] = expired_by.get(at, 0) + count
    by_start = {_utc(key[0]): value for key, value in decided.items()}
    return [
        Bucket(
            at=start,
            opened=opened_by.get(start, 0),
            decided=by_start.get(start, percentiles.NONE).count,
            expired=expired_by.get(start, 0),
            p50=by_start.get(start, percentiles.NONE).p50,
            p90=by_start.get(start, percentiles.NONE).p90,
        )
        for start in chosen.starts()
    ]


def _count_by(rows: QuerySet, moment: str, bucket: str) -> dict[datetime, int]:
    # COUNT(*), not of a column: the range is then read from its index alone (the rows' ids are not in it).
    counted = rows.annotate(at=Trunc(moment, bucket, tzinfo=UTC)).values_list("at").annotate(n=Count("*"))
    return {_utc(at): count for at, count in counted.order_by()}


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def waiting(actions: QuerySet, now: datetime) -> QuerySet:
    waiting_ones: QuerySet = ClientAction.objects.showing(ClientActionStatus.WAITING, now)
    return actions & waiting_ones


def waiting_now(actions: QuerySet, now: datetime) -> Waiting:
    """What waits at ``now``, whatever the range: how many, the oldest's age, how many were escalated."""
    found = waiting(actions, now).aggregate(
        n=Count("pk"), oldest=Min("created_at"), escalated=Count("pk", filter=Q(escalated_at__isnull=False))
    )
    oldest = (now - found["oldest"]).total_seconds() if found["oldest"] else None
    return Waiting(found["n"], oldest, found["escalated"])


def waiting_by_age(project_id: str, filters: Filters, now: datetime) -> list[AgeBand]:
    """What waits now in age bands, each with how many of it were escalated (the page's chart)."""
    actions = waiting(of_project(project_id, filters), now)
    bands = []
    for label, youngest, oldest, age_filter in (*AGE_BANDS, OLDEST_BAND):
        band = actions.filter(created_at__lte=now - timedelta(seconds=youngest))
        if oldest is not None:
            band = band.filter(created_at__gt=now - timedelta(seconds=oldest))
        found = band.aggregate(n=Count("pk"), escalated=Count("pk", filter=Q(escalated_at__isnull=False)))
        bands.append(AgeBand(label, found["n"], found["escalated"], age_filter))
    return bands

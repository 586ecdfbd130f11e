"""What agents do and spend in a project: sessions, items and client actions per bucket, tokens per agent and
model, and their estimated cost from the project's prices (docs/insights.md, "Usage")."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import Trunc

from historyhub.history.models import CARRIES_USAGE, ClientAction, Item, Session, UsageHour
from historyhub.history.usage_hours import CLIENT_ACTIONS, COUNTS, ITEMS, SESSIONS, session_model, tokens_of
from historyhub.insights import ranges, scope
from historyhub.insights.models import Price
from historyhub.insights.ranges import Filters, Range
from historyhub.lib import jsonvalues


@dataclass
class Tokens:
    input: int = 0
    output: int = 0
    cost: float = 0.0

    def add(self, input_tokens: int, output_tokens: int, cost: float) -> None:
        self.input += input_tokens
        self.output += output_tokens
        self.cost += cost


@dataclass(frozen=True)
class UsageBucket:
    at: datetime
    sessions: int
    items: int
    client_actions: int
    tokens: Tokens


@dataclass
class UsageInsights:
    range: Range
    series: list[UsageBucket] = field(default_factory=list)
    by_agent: dict[str, Tokens] = field(default_factory=dict)
    by_model: dict[str, Tokens] = field(default_factory=dict)
    currencies: list[str] = field(default_factory=list)


def compute(project_id: str, chosen: Range, filters: Filters) -> UsageInsights:
    """The range's whole hours from the usage tallies (``history.usage_hours``), its partial first and last hours
    from the rows, through their range indexes."""
    prices = {price.model: price for price in Price.objects.filter(project_id=project_id)}
    result = UsageInsights(range=chosen, currencies=sorted({price.currency for price in prices.values()}))
    sessions_by: dict[datetime, int] = defaultdict(int)
    items_by: dict[datetime, int] = defaultdict(int)
    actions_by: dict[datetime, int] = defaultdict(int)
    tokens_by: dict[datetime, Tokens] = defaultdict(Tokens)

    def spent(at: datetime, agent: str, model: str, input_tokens: int, output_tokens: int) -> None:
        if filters.model and model != filters.model:
            return
        price = prices.get(model)
        cost = price.cost(input_tokens, output_tokens) if price else 0.0
        tokens_by[at].add(input_tokens, output_tokens, cost)
        result.by_agent.setdefault(agent, Tokens()).add(input_tokens, output_tokens, cost)
        result.by_model.setdefault(model, Tokens()).add(input_tokens, output_tokens, cost)

    whole, edges = _split(chosen)
    if whole is not None:
        for at, agent, model, items, input_tokens, output_tokens, sessions, actions in _tallied(
            project_id, *whole, chosen.bucket, filters.agent
        ):
            sessions_by[at] += sessions
            items_by[at] += items
            actions_by[at] += actions
            if input_tokens or output_tokens:
                spent(at, agent, model, input_tokens, output_tokens)
    for since, until in edges:
        rows = _rows(project_id, filters.agent)
        for counts, of_rows, moment in (
            (sessions_by, rows["sessions"], "created_at"),
            (items_by, rows["items"], "received_at"),
            (actions_by, rows["actions"], "created_at"),
        ):
            for at, count in _count_between(of_rows, moment, since, until, chosen).items():
                counts[at] += count
        received = rows["items"].filter(received_at__gte=since, received_at__lt=until)
        for at, tokens, agent in _reported(received, chosen):
            spent(at, agent, tokens.model, tokens.input, tokens.output)
    result.series = [
        UsageBucket(
            at=start,
            sessions=sessions_by.get(start, 0),
            items=items_by.get(start, 0),
            client_actions=actions_by.get(start, 0),
            tokens=tokens_by.get(start, Tokens()),
        )
        for start in chosen.starts()
    ]
    return result


def counted_by(project_id: str, chosen: Range, agent: str, index: int) -> dict[datetime, int]:
    """One count of the tallies (``usage_hours.COUNTS[index]``: sessions, items or client actions) per bucket, of
    one agent or all, read as ``compute`` reads it."""
    counts: dict[datetime, int] = defaultdict(int)
    whole, edges = _split(chosen)
    if whole is not None:
        for at, _, _, *counted in _tallied(project_id, *whole, chosen.bucket, agent):
            counts[at] += counted[index]
    name, moment = {
        SESSIONS: ("sessions", "created_at"),
        ITEMS: ("items", "received_at"),
        CLIENT_ACTIONS: ("actions", "created_at"),
    }[index]
    for since, until in edges:
        for at, count in _count_between(_rows(project_id, agent)[name], moment, since, until, chosen).items():
            counts[at] += count
    return counts


def _split(chosen: Range) -> tuple[tuple[datetime, datetime] | None, list[tuple[datetime, datetime]]]:
    """The range's whole hours, read from the tallies (None when it holds none), and what is left of it at either
    end, read from the rows."""
    first_whole, after_whole = _ceil_hour(chosen.since), ranges.floor(chosen.until, "hour")
    if first_whole >= after_whole:
        return None, [(chosen.since, chosen.until)]
    edges = [(chosen.since, first_whole), (after_whole, chosen.until)]
    return (first_whole, after_whole), [(since, until) for since, until in edges if since < until]


def _rows(project_id: str, agent: str) -> dict[str, QuerySet]:
    """The project's sessions, items and client actions, of one agent or all."""
    rows = {
        "sessions": Session.objects.filter(project_id=project_id),
        "items": Item.objects.filter(scope.sessions_of(project_id)),
        "actions": ClientAction.objects.filter(scope.sessions_of(project_id)),
    }
    if agent:
        rows["sessions"] = rows["sessions"].filter(agent=agent)
        rows["items"] = rows["items"].filter(session__agent=agent)
        rows["actions"] = rows["actions"].filter(session__agent=agent)
    return rows


def _count_between(rows: QuerySet, moment: str, since: datetime, until: datetime, chosen: Range):
    return _count_by(rows.filter(**{f"{moment}__gte": since, f"{moment}__lt": until}), moment, chosen)


def _ceil_hour(moment: datetime) -> datetime:
    floored = ranges.floor(moment, "hour")
    return floored if floored == moment else floored + timedelta(hours=1)


def _tallied(project_id: str, since: datetime, until: datetime, bucket: str, agent: str):
    """(bucket start, agent, model, items, input tokens, output tokens, sessions, client actions) of the tallied
    hours [since, until)."""
    rows = UsageHour.objects.filter(project_id=project_id, hour__gte=since, hour__lt=until)
    if agent:
        rows = rows.filter(agent=agent)
    summed = (
        rows.annotate(at=Trunc("hour", bucket, tzinfo=UTC))
        .values_list("at", "agent", "model")
        .annotate(*(Sum(count) for count in COUNTS))
        .order_by()
    )
    for at, *counted in summed:
        yield at.astimezone(UTC), *counted


def _reported(items: QuerySet, chosen: Range):
    """(bucket start, tokens, agent) of every item in range that reports usage. Orcha items have their usage in a
    column already; the other formats carry it inside the item, so only items whose text names a usage are read."""
    carrying = items.filter(CARRIES_USAGE)
    rows = carrying.annotate(at=Trunc("received_at", chosen.bucket, tzinfo=UTC)).values_list(
        "at", "data", "session__agent", "session__metadata_json"
    )
    for at, data, agent, metadata in rows.order_by().iterator(chunk_size=2000):
        counted = tokens_of(jsonvalues.loads(data), session_model(metadata))
        if counted is not None:
            yield at.astimezone(UTC), counted, agent


def _count_by(rows: QuerySet, moment: str, chosen: Range) -> dict[datetime, int]:
    # COUNT(*), not of a column: the range is then read from its index alone (the rows' ids are not in it).
    counted = rows.annotate(at=Trunc(moment, chosen.bucket, tzinfo=UTC)).values_list("at").annotate(n=Count("*"))
    return {at.astimezone(UTC): count for at, count in counted.order_by()}

"""Insights over the API (docs/insights.md): the numbers of the page for any key of the project, and the prices
that cost is estimated from (changed with an admin key)."""

from django.utils import timezone
from ninja import Field, Query, Schema

from historyhub.apikeys.auth import ApiKeyAuth, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.insights import approvals, prices, ranges, usage
from historyhub.lib.endpoints import errors
from historyhub.lib.schemas import Filter, Time, Timestamp, example
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["insights"])


class RangeQuery(Schema):
    since: Timestamp | None = Field(None, alias="from", description="Inclusive; by default 7 days before `to`.")
    until: Timestamp | None = Field(None, alias="to", description="Exclusive; by default now.")
    bucket: Filter | None = Field(None, description='"hour" or "day"; by default hour up to 2 days, else day.')
    agent: Filter | None = Field(None, description="Only this agent's sessions.")


class ApprovalsQuery(RangeQuery):
    action: Filter | None = Field(None, description="Only actions of this name.")
    policy: Filter | None = Field(None, description="Only actions governed by this policy.")
    decider: Filter | None = Field(None, description="Only decisions by this decider (as resolvedBy names them).")


class UsageQuery(RangeQuery):
    model: Filter | None = Field(None, description="Only tokens of this model.")


class TimeToDecision(Schema):
    p50: float | None
    p90: float | None
    max: float | None


class Decided(Schema):
    count: int
    timeToDecision: TimeToDecision


class Outcomes(Schema):
    approved: int
    edited: int
    rejected: int
    answered: int
    dismissed: int
    expired: int


class WaitingNow(Schema):
    count: int
    oldestSeconds: float | None
    escalated: int


class ActionOut(Schema):
    name: str
    count: int = Field(description="Decided plus expired.")
    approveRate: float
    editRate: float
    rejectRate: float
    p50: float | None


class DeciderOut(Schema):
    by: str
    count: int
    p50: float | None


class ApprovalsBucket(Schema):
    at: Time
    opened: int
    decided: int
    expired: int
    p50: float | None


class ApprovalsOut(Schema):
    from_: Time = Field(alias="from")
    to: Time
    bucket: str
    decided: Decided
    outcomes: Outcomes
    waitingNow: WaitingNow
    byAction: list[ActionOut]
    byDecider: list[DeciderOut]
    series: list[ApprovalsBucket]


class UsageBucketOut(Schema):
    at: Time
    sessions: int
    items: int
    clientActions: int
    inputTokens: int
    outputTokens: int
    cost: float


class AgentTokens(Schema):
    agent: str
    inputTokens: int
    outputTokens: int
    cost: float


class ModelTokens(Schema):
    model: str
    inputTokens: int
    outputTokens: int
    cost: float


class UsageOut(Schema):
    series: list[UsageBucketOut]
    byAgent: list[AgentTokens]
    byModel: list[ModelTokens]


class PriceItem(Schema):
    model: str = Field(max_length=200)
    inputPerMillion: float = Field(ge=0)
    outputPerMillion: float = Field(ge=0)
    currency: str = Field("USD", max_length=8)


class PricesIn(Schema):
    model_config = example({"items": [{"model": "gpt-5", "inputPerMillion": 1.25, "outputPerMillion": 10.0}]})

    items: list[PriceItem]


class PricesOut(Schema):
    items: list[PriceItem]


def _range(query: RangeQuery, now):
    return ranges.make(ranges.parse_time(query.since, "from"), ranges.parse_time(query.until, "to"), query.bucket, now)


@router.get("/insights/approvals", response={200: ApprovalsOut, **errors()}, by_alias=True)
def get_approval_insights(request, query: Query[ApprovalsQuery]):
    """How long actions waited for a decision and how they ended in the range; what waits now (any key)."""
    now = timezone.now()
    chosen = _range(query, now)
    filters = ranges.Filters(
        agent=query.agent or "", action=query.action or "", policy=query.policy or "", decider=query.decider or ""
    )
    found = approvals.compute(request.auth.project_id, chosen, filters, now)
    return {
        "from": chosen.since,
        "to": chosen.until,
        "bucket": chosen.bucket,
        "decided": {
            "count": found.decided.count,
            "timeToDecision": {"p50": found.decided.p50, "p90": found.decided.p90, "max": found.decided.max},
        },
        "outcomes": found.outcomes,
        "waitingNow": {
            "count": found.waiting_now.count,
            "oldestSeconds": found.waiting_now.oldest_seconds,
            "escalated": found.waiting_now.escalated,
        },
        "byAction": [
            {
                "name": row.name,
                "count": row.count,
                "approveRate": row.rate(row.approved),
                "editRate": row.rate(row.edited),
                "rejectRate": row.rate(row.rejected),
                "p50": row.p50,
            }
            for row in found.by_action
        ],
        "byDecider": [{"by": row.by, "count": row.count, "p50": row.p50} for row in found.by_decider],
        "series": [
            {
                "at": row.at,
                "opened": row.opened,
                "decided": row.decided,
                "expired": row.expired,
                "p50": row.p50,
            }
            for row in found.series
        ],
    }


@router.get("/insights/usage", response={200: UsageOut, **errors()})
def get_usage_insights(request, query: Query[UsageQuery]):
    """Sessions, items, client actions and tokens per bucket, tokens and estimated cost per agent and model."""
    chosen = _range(query, timezone.now())
    found = usage.compute(
        request.auth.project_id, chosen, ranges.Filters(agent=query.agent or "", model=query.model or "")
    )
    return {
        "series": [
            {
                "at": row.at,
                "sessions": row.sessions,
                "items": row.items,
                "clientActions": row.client_actions,
                "inputTokens": row.tokens.input,
                "outputTokens": row.tokens.output,
                "cost": round(row.tokens.cost, 6),
            }
            for row in found.series
        ],
        "byAgent": [_tokens("agent", name, tokens) for name, tokens in sorted(found.by_agent.items())],
        "byModel": [_tokens("model", name, tokens) for name, tokens in sorted(found.by_model.items())],
    }


def _tokens(label, name, tokens):
    return {label: name, "inputTokens": tokens.input, "outputTokens": tokens.output, "cost": round(tokens.cost, 6)}


@router.get("/prices", response={200: PricesOut, **errors()})
def list_prices(request):
    """The prices cost is estimated from, per model and million tokens."""
    return {"items": [_price(price) for price in prices.listing(request.auth.project_id)]}


@router.put("/prices", auth=ApiKeyAuth(Scope.ADMIN), response={200: PricesOut, **errors(403, 413)})
def replace_prices(request, body: PricesIn):
    """Replace the project's prices (admin key; other keys 403); a bad item: 400, nothing changed."""
    items = [
        {"model": item.model, "input": item.inputPerMillion, "output": item.outputPerMillion, "currency": item.currency}
        for item in body.items
    ]
    saved = prices.replace(request.auth.project_id, items, actor=resolved_by(request))
    return {"items": [_price(price) for price in saved]}


def _price(price):
    return {
        "model": price.model,
        "inputPerMillion": float(price.input_per_million),
        "outputPerMillion": float(price.output_per_million),
        "currency": price.currency,
    }

"""What the approvals inbox lists besides the waiting actions (docs/dashboard.md, "The approvals inbox"): the
actions that stopped waiting in a time range, by outcome. Each state is the very set the Insights numbers count
(insights.approvals), so that a bar on the Insights page and the inbox page it links to hold the same actions."""

from datetime import UTC, datetime

from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Coalesce

from historyhub.insights import approvals
from historyhub.insights.ranges import Filters, Range

WAITING = ""
CLOSED = "closed"  # decided or expired: what Insights counts per action
DECIDED = "decided"  # any decision: what Insights counts as decided, per decider and over time
DECIDED_STATES = [
    (CLOSED, "Decided or expired"),
    (DECIDED, "Decided, any outcome"),
    *[(outcome, outcome.capitalize()) for outcome in approvals.OUTCOMES],
]
# A range without a start starts before any action.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)


def stopped(
    actions: QuerySet, state: str, decider: str, since: datetime | None, until: datetime | None, now: datetime
) -> QuerySet:
    """Those of ``actions`` in ``state`` (a DECIDED_STATES value) that stopped waiting in [since, until): by when
    decided or expired, as Insights counts them; ``decider`` narrows the decisions only, as on Insights."""
    chosen = Range(since or EARLIEST, until or now, "day")
    decided = approvals.decided_in(actions, chosen, Filters(decider=decider))
    if state == "expired":
        found = approvals.expired_in(actions, chosen, now)
    elif state == CLOSED:
        expired = approvals.expired_in(actions, chosen, now)
        found = actions.filter(Q(pk__in=decided.values("pk")) | Q(pk__in=expired.values("pk")))
    else:
        found = decided
    # The outcome each card shows: an expired action has no decision, so none of the decided outcomes.
    found = found.annotate(outcome=Coalesce(approvals.OUTCOME, Value("expired")))
    return found if state in (CLOSED, DECIDED, "expired") else found.filter(outcome=state)

"""Votes: every decision a decider makes on an action is kept with it (who, when, what, with which arguments),
and several approvers count here (docs/api.md, "Several approvers").

``cast`` runs inside the session's write, which holds the session's row lock (``history.writes``): two
deciders voting at the same moment are serialised by the database, so no vote is lost and no action is
approved with one approval too few.
"""

from enum import Enum

from historyhub.approvals.decisions import Decision
from historyhub.approvals.models import Vote
from historyhub.history import jsonvalues
from historyhub.history.errors import DecisionNotAllowed

ALREADY_DECIDED = "You have already decided on this action."


class Cast(Enum):
    REPEATED = "repeated"  # the decider's vote was already so: nothing changes
    COUNTED = "counted"  # counted; the action still waits for more approvals
    FINAL = "final"  # the vote decides the action


def required(action):
    policy = action.policy
    return policy["requiredApprovals"] if policy is not None else 1


def cast(action, decider, outcome, now):
    """Record ``decider``'s vote (``outcome`` as ``client_actions.decide`` makes it) on a waiting action."""
    approved = outcome.get("approved_arguments_json")
    previous = Vote.objects.filter(action=action, by=decider.name).first()
    if previous is not None:
        same = (
            previous.decision == outcome["decision"]
            and previous.comment == outcome.get("comment", "")
            and _equal_json(previous.arguments_json, approved)
            and _equal_json(previous.response_json, outcome.get("response_json"))
        )
        if same:
            return Cast.REPEATED
        raise DecisionNotAllowed(ALREADY_DECIDED)
    Vote.objects.create(
        action=action,
        by=decider.name,
        user=decider.user,
        api_key=decider.api_key,
        decision=outcome["decision"],
        arguments_json=approved,
        comment=outcome.get("comment", ""),
        response_json=outcome.get("response_json"),
        at=now,
    )
    if outcome["decision"] != Decision.APPROVE:
        return Cast.FINAL
    return Cast.FINAL if approvals_for(action, jsonvalues.loads(approved)) >= required(action) else Cast.COUNTED


def approvals_for(action, arguments):
    """How many distinct deciders voted to approve exactly these arguments."""
    approves = Vote.objects.filter(action=action, decision=Decision.APPROVE).values_list("arguments_json", flat=True)
    return sum(1 for voted in approves if jsonvalues.equal(jsonvalues.loads(voted), arguments))


def approvals_needed(action):
    """How many approvals the action still misses: for the arguments closest to approval; 0 once resolved. Reads
    ``action.votes.all()``, which the readers prefetch (``client_actions.get``), so an answer needs no query."""
    if not action.is_waiting:
        return 0
    approves = [vote.arguments for vote in action.votes.all() if vote.decision == Decision.APPROVE]
    best = max((sum(1 for other in approves if jsonvalues.equal(other, mine)) for mine in approves), default=0)
    return max(required(action) - best, 0)


def _equal_json(left, right):
    if (left is None) != (right is None):
        return False
    return left is None or jsonvalues.equal(jsonvalues.loads(left), jsonvalues.loads(right))

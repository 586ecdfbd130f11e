"""Votes: every decision a decider makes on an action is kept with it (who, through what, when, what, with which
arguments), and several approvers count here (docs/api.md, "Several approvers").

A vote belongs to an identity, never to a label: a person (whatever the channel, and through any key they made) or a
key no person made. ``cast`` runs inside the session's write, which holds the session's row lock
(``history.writes``): two deciders voting at the same moment are serialised by the database, so no vote is lost and
no action is approved with one approval too few; the database's constraints on the identities settle one decider's
two requests racing.

Counting asks the deciders' rule again (``deciders.why_not_counted``): a vote counts while its decider may still
decide, under the policy that governs the arguments it voted for (``deciders.policy_for``). ``judge`` asks it for
the votes of many actions at once, so a page of cards costs the queries of one.
"""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db.models import BooleanField, ExpressionWrapper, F, Prefetch, Q, QuerySet

from historyhub.approvals import deciders, policies
from historyhub.approvals.deciders import Decider
from historyhub.approvals.decisions import Decision
from historyhub.approvals.models import PolicyChoice, PolicyDict, Vote
from historyhub.history.client_actions import Cast
from historyhub.history.models import ClientAction
from historyhub.lib import jsonvalues, session_keys
from historyhub.lib.errors import DecisionNotAllowed

ALREADY_DECIDED = "You have already decided on this action."
# Where ``judge`` leaves an action's judged votes, on the instance, as a prefetch leaves its rows.
JUDGED = "_judged_votes"


def required(action: ClientAction, policy: PolicyChoice = deciders.OWN) -> int:
    """How many approvals ``policy`` (by default the action's own) asks for; one without a policy."""
    policy = deciders.resolved(action, policy)
    return policy["requiredApprovals"] if policy is not None else 1


def previous_vote(action: ClientAction, decider: Decider) -> Vote | None:
    """The vote ``decider`` cast on ``action`` already, through whatever channel or key of theirs, or None."""
    user, api_key = decider.identity
    if user is not None:
        return Vote.objects.filter(action=action, user=user).first()
    return Vote.objects.filter(action=action, user__isnull=True, api_key=api_key).first()


def cast(
    action: ClientAction,
    decider: Decider,
    outcome: dict[str, Any],
    now: datetime,
    policy: PolicyChoice = deciders.OWN,
) -> Cast:
    """Record ``decider``'s vote (``outcome`` as ``deciding.decide`` makes it) on a waiting action; ``policy``
    is the one that governs the arguments an approve votes for (``deciders.policy_for``)."""
    approved = outcome.get("approved_arguments_json")
    previous = previous_vote(action, decider)
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
    user, api_key = decider.identity
    Vote.objects.create(
        action=action,
        by=decider.name,
        user=user,
        api_key=api_key,
        via=decider.via,
        decision=outcome["decision"],
        arguments_json=approved,
        comment=outcome.get("comment", ""),
        response_json=outcome.get("response_json"),
        at=now,
    )
    if outcome["decision"] != Decision.APPROVE:
        return Cast.FINAL
    # An approve always names the arguments it approves (``client_actions.resolve``).
    counted = approvals_for(action, jsonvalues.loads(outcome["approved_arguments_json"]))
    return Cast.FINAL if counted >= required(action, policy) else Cast.COUNTED


def approvals_for(action: ClientAction, arguments: object) -> int:
    """How many distinct deciders who may still decide voted to approve exactly these arguments, now (inside a
    decision: the judgement is not kept, the action's answer judges its votes as they then stand)."""
    approves = [
        vote
        for vote in judged(action, fresh=True)
        if vote.decision == Decision.APPROVE and vote.why is None and jsonvalues.equal(vote.arguments, arguments)
    ]
    delattr(action, JUDGED)
    return len(approves)


def approvals_needed(action: ClientAction) -> int:
    """How many approvals the action still misses: for the arguments closest to approval, each under the policy
    that governs them (the requested ones included, with no votes yet); 0 once resolved. Reads ``judged``."""
    if not action.is_waiting:
        return 0
    counting = [vote for vote in judged(action) if vote.decision == Decision.APPROVE and vote.why is None]
    needed = required(action)
    for vote in counting:
        mine = sum(1 for other in counting if jsonvalues.equal(other.arguments, vote.arguments))
        needed = min(needed, max(required(action, vote.policy) - mine, 0))
    return needed


def prefetched() -> "Prefetch[str, QuerySet[Vote], str]":
    """The votes to prefetch with actions, each knowing from the database whether it is for the action's own
    arguments as stored (``for_original``), so judging a page of cards reads no action's arguments: they may be a
    megabyte each (an approve without edits stores the action's own text)."""
    same_text = Q(arguments_json=F("action__arguments_json"))
    return Prefetch(
        "votes", queryset=Vote.objects.annotate(for_original=ExpressionWrapper(same_text, output_field=BooleanField()))
    )


def _for_the_original(vote: Vote, action: ClientAction) -> bool:
    return getattr(vote, "for_original", False) or jsonvalues.equal(vote.arguments, action.arguments)


def judged(action: ClientAction, fresh: bool = False) -> list[Vote]:
    """The action's votes, oldest first, each with ``why`` (None while it counts, else why not) and ``policy``
    (``deciders.policy_for`` its arguments). Read once per action (``judge`` fills it for many); ``fresh`` reads
    the votes again (inside a decision, after a vote was cast)."""
    if fresh or not hasattr(action, JUDGED):
        if fresh and hasattr(action, "_prefetched_objects_cache"):
            action._prefetched_objects_cache.pop("votes", None)
        judge([action])
    votes: list[Vote] = getattr(action, JUDGED)
    return votes


def judge(actions: Iterable[ClientAction]) -> list[ClientAction]:
    """Judge the votes of ``actions`` (of one project or several) together: the deciders, their roles and groups
    and the project's policies are looked up once for all of them. A resolved action's votes all count: the count
    is over, and they are the record of how it ended."""
    actions = list(actions)
    by_project: dict[str, list[ClientAction]] = {}
    judged_votes: dict[int, list[Vote]] = {}
    for action in actions:
        votes = judged_votes[id(action)] = list(action.votes.all())
        setattr(action, JUDGED, votes)
        for vote in votes:
            vote.why, vote.policy = None, deciders.OWN
        if action.is_waiting and votes:
            by_project.setdefault(session_keys.project_of(action.session_id), []).append(action)
    for project, waiting in by_project.items():
        every_vote = [vote for action in waiting for vote in judged_votes[id(action)]]
        voters = deciders.voters(every_vote, project)
        listing: list[PolicyDict] | None = None
        for action in waiting:
            for vote in judged_votes[id(action)]:
                if vote.decision == Decision.APPROVE and not _for_the_original(vote, action):
                    if listing is None:
                        listing = policies.listing(project)
                    vote.policy = deciders.policy_for(action, vote.arguments, listing)
                vote.why = deciders.why_not_counted(vote, action, vote.policy, voters)
    return actions


def _equal_json(left: str | None, right: str | None) -> bool:
    if left is None or right is None:
        return left is right
    return jsonvalues.equal(jsonvalues.loads(left), jsonvalues.loads(right))

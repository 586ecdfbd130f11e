"""The decision vocabulary: what a person (or a key) may answer a client action, and what each answer does
(docs/api.md, "Client actions"). Forms, templates, the admin, the schemas and the timeline cards loop over
``Decision`` (defined beside the column that records it, ``history.models``, and used through this module);
nothing else spells the words out.
"""

from collections.abc import Iterable
from typing import Any

from historyhub.approvals.deciders import Decider
from historyhub.audit import log as audit_log
from historyhub.history.models import DEFAULT_ALLOWED as DEFAULT_ALLOWED  # what opening allows by default
from historyhub.history.models import ClientAction
from historyhub.history.models import ClientActionStatus as Status
from historyhub.history.models import Decision as Decision  # the words; their rules are this module's
from historyhub.lib import jsonvalues, session_keys

# The words a decision request may carry; ``edit`` is not one of them.
SENT = tuple(decision.value for decision in Decision if decision != Decision.EDIT)
# The state each decision leaves the action in.
OUTCOME = {
    Decision.APPROVE: Status.APPROVED,
    Decision.EDIT: Status.APPROVED,
    Decision.REJECT: Status.REJECTED,
    Decision.RESPOND: Status.ANSWERED,
    Decision.DISMISS: Status.DISMISSED,
}
# How a message says it was done.
DONE = {
    Decision.APPROVE: "Approved",
    Decision.REJECT: "Rejected",
    Decision.RESPOND: "Answered",
    Decision.DISMISS: "Dismissed",
}
# The decisions that need nothing typed, so several actions can take them at once (admin, batch decisions).
WITHOUT_ANSWER = (Decision.APPROVE, Decision.REJECT, Decision.DISMISS)
# The decisions a person presses a button for, in order: approving with edited arguments is Approve after editing
# them.
DECISION_BUTTONS = tuple(decision for decision in Decision if decision != Decision.EDIT)


def not_allowed_message(kind: str) -> str:
    return f'This action does not allow the response "{kind}".'


def kind_of(decision: str, arguments: object, original: object) -> Decision:
    """The kind of response a decision is: an approve that changes the arguments is an ``edit``."""
    if decision == Decision.APPROVE and arguments is not None and not jsonvalues.equal(arguments, original):
        return Decision.EDIT
    return Decision(decision)


def buttons_for(allowed: Iterable[str]) -> list[Decision]:
    """The buttons an action's allowed responses call for: Approve whenever it may be approved, edited or not."""
    shown = set(allowed)
    if Decision.EDIT in shown:
        shown.add(Decision.APPROVE)
    return [decision for decision in DECISION_BUTTONS if decision in shown]


# The audit rows of decisions (docs/data.md, "Audit log") ------------------------------------------------------


class Audited:
    """What decisions record in the audit log (historyhub.audit), by name."""

    DECISION = "decision"
    VOTE = "vote"


def audit_decision(action: ClientAction, decider: Decider) -> None:
    """A person's or key's decision of a client action, in the write that made it."""
    project, session_id = session_keys.split(action.session_id)
    audit_log.record(
        project,
        decider.name,
        Audited.DECISION,
        f"{session_id} / {action.call_id}",
        decision=action.decision,
        comment=action.comment,
        edited=action.approved_arguments_json not in (None, action.arguments_json),
    )


def audit_vote(action: ClientAction, decider: Decider, outcome: dict[str, Any]) -> None:
    """One approval of several that does not yet decide the action, in the write that counted it."""
    project, session_id = session_keys.split(action.session_id)
    audit_log.record(
        project,
        decider.name,
        Audited.VOTE,
        f"{session_id} / {action.call_id}",
        decision=outcome["decision"],
        comment=outcome.get("comment") or "",
        edited=outcome.get("approved_arguments_json") not in (None, action.arguments_json),
    )

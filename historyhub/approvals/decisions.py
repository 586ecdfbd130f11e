"""The decision vocabulary: what a person (or a key) may answer a client action, and what each answer does
(docs/api.md, "Client actions"). Forms, templates, the admin, the schemas and the timeline cards loop over
``Decision``; nothing else spells the words out.
"""

from django.db import models

from historyhub.history import jsonvalues
from historyhub.history.models import ClientActionStatus as Status


class Decision(models.TextChoices):
    APPROVE = "approve", "Approve"
    # Approve with changed arguments: a kind an action may allow or not, sent as ``approve`` with ``arguments``.
    EDIT = "edit", "Edit"
    REJECT = "reject", "Reject"
    RESPOND = "respond", "Respond"
    DISMISS = "dismiss", "Dismiss"


# What an action allows when it names nothing.
DEFAULT_ALLOWED = (Decision.APPROVE, Decision.EDIT, Decision.REJECT)
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
# The buttons a person presses, in order: approving with edited arguments is Approve after editing them.
BUTTONS = tuple(decision for decision in Decision if decision != Decision.EDIT)


def not_allowed_message(kind):
    return f'This action does not allow the response "{kind}".'


def kind_of(decision, arguments, original):
    """The kind of response a decision is: an approve that changes the arguments is an ``edit``."""
    if decision == Decision.APPROVE and arguments is not None and not jsonvalues.equal(arguments, original):
        return Decision.EDIT
    return Decision(decision)


def buttons_for(allowed):
    """The buttons an action's allowed responses call for: Approve whenever it may be approved, edited or not."""
    shown = set(allowed)
    if Decision.EDIT in shown:
        shown.add(Decision.APPROVE)
    return [decision for decision in BUTTONS if decision in shown]

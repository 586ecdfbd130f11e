"""Deciding several client actions at once, once a person has seen exactly which
(docs/dashboard.md, "Batch decisions").

A batch is the set of waiting actions a decision would resolve: those among
the selected ones, or every waiting action the page's filters match (on every
page). Its confirmation lists them, and carries the batch's fingerprint; the
confirmed decision is carried out only if the batch it finds then has the same
fingerprint, so what is decided is exactly what was shown. The decision itself
is all or nothing, on the approvals page and in the admin alike (``decide``):
one action that cannot be decided leaves every other one waiting, and the
person is told which and why. Both offer the same decisions (``DECISIONS``).
"""

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Substr

from historyhub.approvals import deciding, reading
from historyhub.approvals.deciders import Decider
from historyhub.approvals.decisions import WITHOUT_ANSWER
from historyhub.history.models import ClientAction
from historyhub.lib import hidden_characters, previews, session_keys
from historyhub.lib.errors import DomainError

# The decisions several actions can take at once, in this order: the admin's actions and the approvals page's batch
# bar both offer these, and only these (those that need nothing typed).
DECISIONS = WITHOUT_ANSWER
SUMMARY_CHARS = 200
# How many decided actions a message names before it counts the rest.
NAMED_IN_MESSAGE = 3
# A client action as a batch names it: ("<session key>", "<call id>").
ActionKey = tuple[str, str]


class Undecidable(NamedTuple):
    """A waiting action the decider may not decide, and why (``Decider.reason_not_to_decide``)."""

    action: ClientAction
    reason: str


@dataclass(frozen=True)
class Batch:
    actions: list[ClientAction]  # the waiting actions it decides, oldest first
    left_out: int = 0  # how many of the selected ones no longer wait
    # Waiting ones the decider may not decide: named on the confirmation, and left out of what it decides.
    undecidable: tuple[Undecidable, ...] = ()

    def decidable_by(self, decider: Decider) -> "Batch":
        """The batch without the actions ``decider`` may not decide, which it names in ``undecidable``: a
        confirmation says beforehand what would be refused, rather than the whole batch failing on it."""
        decidable: list[ClientAction] = []
        undecidable: list[Undecidable] = []
        for action in self.actions:
            reason = decider.reason_not_to_decide(action)
            if reason is None:
                decidable.append(action)
            else:
                undecidable.append(Undecidable(action, reason))
        return Batch(decidable, self.left_out, tuple(undecidable))

    @property
    def keys(self) -> list[ActionKey]:
        """Its actions as ("<session key>", "<call id>"), in lock order."""
        return sorted((action.session_id, action.call_id) for action in self.actions)

    @property
    def selection(self) -> list[str]:
        """Its actions as the page names them, "<session id>/<call id>" (ids as the project knows them), sorted."""
        return sorted(f"{session_keys.session_id_of(action.session_id)}/{action.call_id}" for action in self.actions)

    @property
    def fingerprint(self) -> str:
        """Equal for batches of the same actions: the same records, not look-alikes (the pk is in it)."""
        lines = sorted(f"{action.pk} {action.session_id}/{action.call_id}" for action in self.actions)
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]

    def rows(self) -> list[dict[str, Any]]:
        """What the confirmation says of each action: why it looks destructive, and how its arguments begin."""
        return [
            {
                "action": action,
                "destructive": action.destructive_reasons,
                # An annotation ``summarised`` adds to the query, which the model's type does not know.
                "arguments": previews.shortened(action.arguments_start, SUMMARY_CHARS),  # type: ignore[attr-defined]
            }
            for action in self.actions
        ]


def summarised(actions: QuerySet[ClientAction]) -> QuerySet[ClientAction]:
    """The actions with as much of their arguments as a confirmation shows, and none of their description: a
    confirmation of every waiting action reads a few hundred bytes of each (docs/dashboard.md, "Large arguments
    and descriptions")."""
    return actions.defer("arguments_json", "description").annotate(
        arguments_start=Substr("arguments_json", 1, SUMMARY_CHARS + 1)
    )


def of_waiting(actions: QuerySet[ClientAction]) -> Batch:
    """The batch of ``actions``, a query of waiting actions (every one the inbox's filters match), oldest first."""
    return Batch(list(summarised(actions)))


def waiting_among(project: str, keys: Iterable[ActionKey]) -> Batch:
    """The waiting actions of ``project`` among ("<session key>", "<call id>") keys."""
    wanted = set(keys)
    candidates = summarised(reading.listing(project, status="waiting")).filter(
        session_id__in={session_id for session_id, _ in wanted}, call_id__in={call_id for _, call_id in wanted}
    )
    actions = [action for action in candidates if (action.session_id, action.call_id) in wanted]
    return Batch(actions, left_out=len(wanted) - len(actions))


class Refused(Exception):
    """A batch holding an action that could not be decided, so none of it was: which action, and ``error``, the
    DomainError that says why."""

    def __init__(self, session_key: str, call_id: str, error: DomainError) -> None:
        super().__init__(error.message)
        self.session_key, self.call_id, self.error = session_key, call_id, error

    def message(self, session: str) -> str:
        """What the person is told, naming the action's session as the page does (``session``)."""
        return f"Nothing was decided, as {session}/{self.call_id} could not be: {self.error.message}"


def decide(keys: Iterable[ActionKey], *, decision: str, comment: str, decider: Decider) -> None:
    """Decide every ("<session key>", "<call id>") key, in lock order, or none: one action that cannot be
    decided raises ``Refused`` and leaves every other one waiting."""
    with transaction.atomic():
        for session_key, call_id in sorted(keys):
            try:
                deciding.decide(session_key, call_id, decision=decision, comment=comment, decider=decider)
            except DomainError as error:
                raise Refused(session_key, call_id, error) from error


def done_message(done: str, decided: Sequence[ActionKey]) -> str:
    """What a person is told once ``decided`` ("<session key>", "<call id>") were decided, naming which, e.g.
    "Rejected 1 action: issue_refund (call_7) in Farid's refund.": a count alone does not say what was done."""
    wanted = Q()
    for session_key, call_id in sorted(decided)[:NAMED_IN_MESSAGE]:
        wanted |= Q(session_id=session_key, call_id=call_id)
    actions = ClientAction.objects.filter(wanted).select_related("session").order_by("session_id", "call_id")
    # Names and ids are the agent's text: a hidden character in them shows as its marker, as on the cards.
    names = [
        hidden_characters.labelled(f"{action.name} ({action.call_id}) in {session_label(action)}") for action in actions
    ]
    rest = len(decided) - len(names)
    listed = ", ".join(names) + (f" and {rest} more" if rest else "")
    return f"{done} {len(decided)} action{'s' if len(decided) != 1 else ''}: {listed}."


def session_label(action: ClientAction) -> str:
    return action.session.name or session_keys.session_id_of(action.session_id)

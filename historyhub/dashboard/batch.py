"""Deciding several client actions at once, once a person has seen exactly which
(docs/dashboard.md, "Batch decisions").

A batch is the set of waiting actions a decision would resolve: those among
the selected ones, or every waiting action the page's filters match (on every
page). Its confirmation lists them, and carries the batch's fingerprint; the
confirmed decision is carried out only if the batch it finds then has the same
fingerprint, so what is decided is exactly what was shown. The decision itself
is all or nothing, on the approvals page and in the admin alike (``decide``):
one action that cannot be decided leaves every other one waiting, and the
person is told which and why.
"""

import hashlib
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Substr
from django.utils import timezone

from historyhub.dashboard import inbox
from historyhub.history import client_actions, previews
from historyhub.history.errors import DomainError
from historyhub.history.models import ClientAction
from historyhub.lib import hidden_characters
from historyhub.projects import keys

SUMMARY_CHARS = 200
# How many decided actions a message names before it counts the rest.
NAMED_IN_MESSAGE = 3


@dataclass(frozen=True)
class Batch:
    actions: list  # the waiting ClientActions it decides, oldest first
    left_out: int = 0  # how many of the selected ones no longer wait

    @property
    def keys(self):
        """Its actions as ("<session key>", "<call id>"), in lock order."""
        return sorted((action.session_id, action.call_id) for action in self.actions)

    @property
    def selection(self):
        """Its actions as the page names them, "<session id>/<call id>" (ids as the project knows them), sorted."""
        return sorted(f"{keys.session_id_of(action.session_id)}/{action.call_id}" for action in self.actions)

    @property
    def fingerprint(self):
        """Equal for batches of the same actions: the same records, not look-alikes (the pk is in it)."""
        lines = sorted(f"{action.pk} {action.session_id}/{action.call_id}" for action in self.actions)
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]

    def rows(self):
        """What the confirmation says of each action: why it looks destructive, and how its arguments begin."""
        return [
            {
                "action": action,
                "destructive": action.destructive_reasons,
                "arguments": previews.shortened(action.arguments_start, SUMMARY_CHARS),
            }
            for action in self.actions
        ]


def summarised(actions):
    """The actions with as much of their arguments as a confirmation shows, and none of their description: a
    confirmation of every waiting action reads a few hundred bytes of each (docs/dashboard.md, "Large arguments
    and descriptions")."""
    return actions.defer("arguments_json", "description").annotate(
        arguments_start=Substr("arguments_json", 1, SUMMARY_CHARS + 1)
    )


def every_waiting(project, criteria):
    """Every waiting action of ``project`` that the inbox's filters (``inbox.Criteria``) match, oldest first."""
    return Batch(list(summarised(inbox.matching(project, criteria, timezone.now()))))


def waiting_among(project, keys):
    """The waiting actions of ``project`` among ("<session key>", "<call id>") keys."""
    wanted = set(keys)
    candidates = summarised(client_actions.listing(project, status="waiting")).filter(
        session_id__in={session_id for session_id, _ in wanted}, call_id__in={call_id for _, call_id in wanted}
    )
    actions = [action for action in candidates if (action.session_id, action.call_id) in wanted]
    return Batch(actions, left_out=len(wanted) - len(actions))


class Refused(Exception):
    """A batch holding an action that could not be decided, so none of it was: which action, and ``error``, the
    DomainError that says why."""

    def __init__(self, session_key, call_id, error):
        super().__init__(error.message)
        self.session_key, self.call_id, self.error = session_key, call_id, error

    def message(self, session):
        """What the person is told, naming the action's session as the page does (``session``)."""
        return f"Nothing was decided, as {session}/{self.call_id} could not be: {self.error.message}"


def decide(keys, *, decision, comment, decider):
    """Decide every ("<session key>", "<call id>") key, in lock order, or none: one action that cannot be
    decided raises ``Refused`` and leaves every other one waiting."""
    with transaction.atomic():
        for session_key, call_id in sorted(keys):
            try:
                client_actions.decide(session_key, call_id, decision=decision, comment=comment, decider=decider)
            except DomainError as error:
                raise Refused(session_key, call_id, error) from error


def done_message(done, decided):
    """What a person is told once ``decided`` ("<session key>", "<call id>") were decided, naming which, e.g.
    "Rejected 1 action: issue_refund (call_7) in Farid's refund.": a count alone does not say what was done."""
    wanted = Q()
    for session_key, call_id in sorted(decided)[:NAMED_IN_MESSAGE]:
        wanted |= Q(session_id=session_key, call_id=call_id)
    actions = ClientAction.objects.filter(wanted).select_related("session").order_by("session_id", "call_id")
    # Names and ids are the agent's text: a hidden character in them shows as its marker, as on the cards.
    names = [
        hidden_characters.labelled(
            f"{action.name} ({action.call_id}) in {action.session.name or keys.session_id_of(action.session_id)}"
        )
        for action in actions
    ]
    rest = len(decided) - len(names)
    listed = ", ".join(names) + (f" and {rest} more" if rest else "")
    return f"{done} {len(decided)} action{'s' if len(decided) != 1 else ''}: {listed}."

"""What happened to a client action, told to whoever listens (docs/notifications.md).

The domain (history, approvals) says what happened with ``announce(event, action)``, or
``announce_resolved(action)`` when an action reached its final state, inside the transaction that changed the
action. It names no listener: the notifications app connects its receiver to ``happened`` when it starts
(``NotificationsConfig.ready``), so the stack's lower floors do not import it. Receivers run synchronously, in
that transaction: the outbox rows they write commit with the change, and a receiver that raises rolls it back.
"""

from django.db import models
from django.dispatch import Signal

from historyhub.history.models import ClientActionStatus as Status


class Event(models.TextChoices):
    """The events a channel can ask for."""

    OPENED = "client_action.opened"
    VOTED = "client_action.voted"
    ESCALATED = "client_action.escalated"
    DECIDED = "client_action.decided"
    EXPIRED = "client_action.expired"
    COMPLETED = "client_action.completed"
    UNDECIDABLE = "client_action.undecidable"
    EXECUTION_REFUSED = "client_action.execution_refused"
    # An Insights threshold was crossed (historyhub.insights.alerts): about a project, not one action.
    ALERT_RAISED = "alert.raised"


# The event a final status announces; a status missing here announces nothing.
RESOLUTION_EVENTS = {
    Status.APPROVED: Event.DECIDED,
    Status.REJECTED: Event.DECIDED,
    Status.ANSWERED: Event.DECIDED,
    Status.DISMISSED: Event.DECIDED,
    Status.COMPLETED: Event.COMPLETED,
    Status.FAILED: Event.COMPLETED,
    Status.EXPIRED: Event.EXPIRED,
}

# Sent with ``event`` (an Event) and ``action`` (the ClientAction, as saved in the open transaction).
happened = Signal()


def announce(event, action):
    """Tell the receivers ``event`` happened to ``action``; a receiver's error propagates (``send``, not
    ``send_robust``), so the write that announced it changes nothing."""
    happened.send(sender=Event, event=Event(event), action=action)


def announce_resolved(action):
    """Announce the event of the final state ``action`` just reached."""
    event = RESOLUTION_EVENTS.get(action.status)
    if event is not None:
        announce(event, action)

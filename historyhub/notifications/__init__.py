"""Notifications: channels, the outbox, the worker and its transports (docs/notifications.md).

The domain calls ``announce(event, action)`` (or ``announce_resolved(action)`` when an action reached its
final state) inside the transaction that changes the action; that is all it needs to know of notifications.
"""

from historyhub.notifications.event_types import Event

__all__ = ["Event", "announce", "announce_resolved"]

# The event a final status announces; a status missing here announces nothing.
RESOLUTION_EVENTS = {
    "approved": Event.DECIDED,
    "rejected": Event.DECIDED,
    "answered": Event.DECIDED,
    "dismissed": Event.DECIDED,
    "completed": Event.COMPLETED,
    "failed": Event.COMPLETED,
    "expired": Event.EXPIRED,
}


def announce(event, action):
    """Write the outbox rows for ``event`` about ``action``, in the open transaction (``events.announce``)."""
    from historyhub.notifications import events

    events.announce(event, action)


def announce_resolved(action):
    """Announce the event of the final state ``action`` just reached."""
    event = RESOLUTION_EVENTS.get(str(action.status))
    if event is not None:
        announce(event, action)

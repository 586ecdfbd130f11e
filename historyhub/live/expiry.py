"""The process's expiry ticker: nobody writes when a client action's ``expiresAt`` passes, yet every open page
must hear of it (docs/live-updates.md).

One thread per process, started with the first page stream, asks the database when the next waiting action
expires, sleeps until then (or until an inbox change may have moved that time), and announces the expiry to
this process's subscribers as a change of that action and of the inbox. A thousand open pages cost one query
per inbox change, not a thousand.
"""

import logging
import threading

from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.utils import timezone

from historyhub.live.changes import Change
from historyhub.live.subscriptions import SignalThread

logger = logging.getLogger(__name__)

# How long the ticker sleeps when nothing is due, and between looks at whether it should stop.
IDLE_SECONDS = 1.0


class ExpiryTicker(SignalThread):
    def __init__(self, hub):
        super().__init__(hub)
        self._poked = threading.Event()

    def poke(self):
        """What waits for a person changed: the next expiry may be another one."""
        self._poked.set()

    def stop(self, wait=True):
        self._stopping.set()
        self._poked.set()
        if wait:
            self._thread.join()

    def _run(self):
        while not self._stopping.is_set():
            try:
                self._tick()
            except Exception:  # the database went away, say: tick again soon, never die
                logger.warning("Live updates: the expiry ticker failed; starting again", exc_info=True)
                self._stopping.wait(IDLE_SECONDS)

    def _tick(self):
        told = timezone.now()
        upcoming = _read(_next_expiry, told)
        while not self._stopping.is_set():
            timeout = IDLE_SECONDS
            if upcoming is not None:
                timeout = min(timeout, max(0.0, (upcoming - timezone.now()).total_seconds()))
            poked = self._poked.wait(timeout)
            self._poked.clear()
            now = timezone.now()
            if upcoming is not None and upcoming <= now:
                due = _read(_expired_between, told, now)
                self.hub.publish(
                    Change(session=session_id, actions=frozenset(call_ids), inbox=True)
                    for session_id, call_ids in due.items()
                )
                told = now
            if poked or (upcoming is not None and upcoming <= now):
                upcoming = _read(_next_expiry, told)


def _read(query, *args):
    try:
        return query(*args)
    finally:
        # Back to the pool (closed, on SQLite): the ticker holds no connection while it sleeps.
        connection.close()


# The client actions whose expiries the ticker tells: ``history.models.ClientAction``, handed down by the history app
# when it starts (``HistoryConfig.ready``), as live sits below history. Its queries ``expiring_after`` and
# ``expiring_between`` say when an action comes to read expired (the rule is history's, ``models.has_expired``).
_watched = None


def watch_expiries_of(model):
    """Tell the expiries of ``model``'s rows from now on."""
    global _watched
    _watched = model


def _client_actions():
    if _watched is None:
        raise ImproperlyConfigured("No model's expiries are watched: the history app registers it when it starts.")
    return _watched._default_manager


def _next_expiry(after):
    """When the first waiting action to expire after ``after`` does, if any: one indexed query."""
    return _client_actions().expiring_after(after).values_list("expires_at", flat=True).first()


def _expired_between(after, until):
    """{session id: [call id, …]} of the waiting actions that come to read expired in (after, until]."""
    due = {}
    rows = _client_actions().expiring_between(after, until).values_list("session_id", "call_id")
    for session_id, call_id in rows:
        due.setdefault(session_id, []).append(call_id)
    return due

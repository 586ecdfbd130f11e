"""On PostgreSQL: a write's transaction sends NOTIFY; one LISTEN connection per process relays it.

PostgreSQL delivers a notification when, and only if, the transaction that
sent it commits, to every listening session of the database, this process's
own included, and folds repeats of one payload within a transaction.
"""

import logging

import psycopg
from psycopg import sql

from historyhub.live.changes import Change
from historyhub.live.subscriptions import SignalThread

logger = logging.getLogger(__name__)

CHANNEL = "historyhub_sessions"
# How long the listener blocks before it looks whether it should stop.
STOP_CHECK_SECONDS = 1.0
RECONNECT_FIRST_DELAY = 0.1
RECONNECT_MAX_DELAY = 5.0
# The operating system's own probe finds a connection that died silently.
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}


def notify_call(change):
    """The plain call for one change, as an expression and its parameters: it costs PostgreSQL half what the
    array's does."""
    return "pg_notify(%s, %s)", [CHANNEL, change.encode()]


def announce(connection, changes):
    with connection.cursor() as cursor:
        if len(changes) == 1:
            expression, parameters = notify_call(changes[0])
            cursor.execute(f"SELECT {expression}", parameters)
        elif changes:
            payloads = [change.encode() for change in changes]
            # Many (a retention batch's deleted sessions) in one round trip; unnest keeps their order.
            cursor.execute("SELECT pg_notify(%s, payload) FROM unnest(%s::text[]) AS payload", [CHANNEL, payloads])


class Listener(SignalThread):
    """A thread holding one autocommit connection in LISTEN, relaying each payload (a ``Change``) to the hub.

    When the connection breaks (PostgreSQL restarted, the backend was
    terminated) it reconnects with a growing delay, and once listening again
    wakes every subscriber, since what was sent meanwhile is lost.
    """

    def __init__(self, hub, connection_params):
        super().__init__(hub)
        self.params = {
            **connection_params,
            **KEEPALIVES,
            "autocommit": True,
            "application_name": "historyhub live",
        }

    def _run(self):
        delay = RECONNECT_FIRST_DELAY
        while not self._stopping.is_set():
            try:
                with psycopg.connect(**self.params) as listening:
                    listening.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
                    self.hub.publish_unknown()
                    delay = RECONNECT_FIRST_DELAY
                    self._relay(listening)
            except psycopg.Error as error:
                logger.warning("Live updates: listening failed (%s); retrying in %.1f s", error, delay)
                self._stopping.wait(delay)
                delay = min(delay * 2, RECONNECT_MAX_DELAY)

    def _relay(self, listening):
        while not self._stopping.is_set():
            for notification in listening.notifies(timeout=STOP_CHECK_SECONDS):
                try:
                    change = Change.decode(notification.payload)
                except ValueError:
                    # Not one of ours (someone else notified the channel): everyone looks again.
                    self.hub.publish_unknown()
                    continue
                self.hub.publish((change,))

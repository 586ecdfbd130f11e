"""Telling the delivery worker there is work (docs/notifications.md, "The worker").

Whoever writes an outbox row (an event's deliveries, an invitation to mail, an alert) wakes the workers in the
same transaction: on PostgreSQL a NOTIFY on the channel they LISTEN on, which reaches them when, and only if, the
transaction commits; SQLite has one worker, which polls (``notifications.delivery_worker.POLL_SECONDS``).
"""

from django.db import connection

WAKE_CHANNEL = "historyhub_outbox"


def wake_workers() -> None:
    """Tell waiting workers there is work, once this transaction commits (a rolled-back one tells nobody)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, '')", [WAKE_CHANNEL])

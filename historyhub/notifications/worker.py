"""The delivery worker: send what is due, then sleep until something is (docs/notifications.md, "The worker").

On PostgreSQL it sleeps in ``LISTEN historyhub_outbox``: a transaction that writes outbox rows notifies on
commit, so a new event is picked up at once, by whichever worker claims it first. On SQLite the one worker
looks every ``POLL_SECONDS``. Either way it wakes for the next retry that falls due.
"""

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, connections
from psycopg import sql

from historyhub.notifications import digests, outbox
from historyhub.notifications.events import WAKE_CHANNEL

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# The longest a worker sleeps without looking, whatever it was told: a lost notification costs this at most.
IDLE_SECONDS = 5.0
RECONNECT_SECONDS = 1.0


class Worker:
    def __init__(self, stop_when=lambda: False):
        self.stop_when = stop_when
        self.listening = None
        # A slow receiver must not hold up the others: a claimed batch is sent this many at a time. SQLite
        # has one writer, so there the worker sends one after another, in its own thread.
        threads = settings.NOTIFICATIONS_SEND_THREADS if connection.vendor == "postgresql" else 1
        self.senders = ThreadPoolExecutor(threads, thread_name_prefix="deliver") if threads > 1 else None

    def run(self):
        while not self.stop_when():
            try:
                sent = self.deliver_due()
            except DatabaseError as error:
                # The database may be restarting: the rows wait for us, and nothing was lost.
                log.warning("delivery worker: %s", error)
                connections.close_all()
                self.sleep(RECONNECT_SECONDS)
                continue
            if not sent:
                self.sleep(self.idle_for())

    def deliver_due(self):
        """Send every row due now; how many were sent."""
        total = 0
        while not self.stop_when():
            batch = outbox.claim()
            if not batch:
                break
            if self.senders is None:
                for delivery in batch:
                    outbox.deliver(delivery)
            else:
                list(self.senders.map(send, batch))
            total += len(batch)
        digests.send_due()
        return total

    def idle_for(self):
        wait = outbox.next_due_in()
        return IDLE_SECONDS if wait is None else min(wait, IDLE_SECONDS)

    def sleep(self, seconds):
        if connection.vendor != "postgresql":
            self._sleep_polling(min(seconds, POLL_SECONDS))
            return
        try:
            listening = self._listening()
            for _ in listening.notifies(timeout=seconds, stop_after=1):
                pass
        except psycopg.Error as error:
            log.warning("delivery worker: listening failed (%s)", error)
            self._close_listening()
            self._sleep_polling(min(seconds, RECONNECT_SECONDS))

    def _listening(self):
        if self.listening is None or self.listening.closed:
            params = {**connection.get_connection_params(), "autocommit": True}
            params["application_name"] = "historyhub deliver"
            self.listening = psycopg.connect(**params)
            self.listening.execute(sql.SQL("LISTEN {}").format(sql.Identifier(WAKE_CHANNEL)))
        return self.listening

    def _close_listening(self):
        if self.listening is not None:
            self.listening.close()
            self.listening = None

    def _sleep_polling(self, seconds):
        time.sleep(seconds)

    def close(self):
        self._close_listening()
        if self.senders is not None:
            self.senders.shutdown()


def send(delivery):
    try:
        return outbox.deliver(delivery)
    finally:
        # A sender thread keeps its connection between batches; a broken one is dropped, not reused.
        close_old_connections()


def parent_gone(parent=None):
    """A check that says when the process that started this one has ended (bin/start's server)."""
    parent = parent if parent is not None else os.getppid()
    return lambda: os.getppid() != parent

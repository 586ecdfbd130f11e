"""The delivery worker: send what is due, each delivery in a slot of its own, then sleep until something is
(docs/notifications.md, "The worker").

One destination never delays another. Each attempt runs on a sender thread under one deadline for its whole
exchange (``deadlines``), and takes a slot of its **destination** (a webhook's host and port, an email or Slack
channel): at most ``NOTIFICATIONS_DESTINATION_SLOTS`` per destination and ``NOTIFICATIONS_SEND_THREADS`` in all.
The worker claims only as many rows as it has free slots, never rows of a destination whose slots are all taken
(it learns a channel's destination from the rows it claims; a row claimed for a full destination is given back at
once), and claims again as soon as any slot frees. So a receiver that drips or never answers holds its own slots
for at most its deadline each, and every other channel's deliveries go out meanwhile.

On PostgreSQL it sleeps in ``LISTEN historyhub_outbox``: a transaction that writes outbox rows notifies on
commit, so a new event is picked up at once, by whichever worker claims it first. On SQLite it looks every
``POLL_SECONDS``. Either way it wakes when a slot frees and for the next retry that falls due.
"""

import logging
import os
import select
import threading
import time
import weakref
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import psycopg
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, connections
from psycopg import sql

from historyhub.lib.times import format_time
from historyhub.lib.wakeups import WAKE_CHANNEL
from historyhub.notifications import digests, outbox
from historyhub.notifications.models import Channel, DeliveryStatus
from historyhub.postgresql.listening import listening_params
from historyhub.projects import invitation_mail
from historyhub.serving import heartbeats

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# The longest a worker sleeps without looking, whatever it was told: a lost notification costs this at most.
IDLE_SECONDS = 5.0
RECONNECT_SECONDS = 1.0
HEARTBEAT_NAME = "deliver"
DIGESTS = "digests"


def destination_of(channel: Channel) -> str:
    """What a slow receiver slows down: a webhook's host and port (every channel that posts there), else the
    channel itself (email and Slack channels each speak to the installation's one server, which their own
    deadlines bound)."""
    if channel.kind == "webhook":
        target = urlsplit(channel.url)
        try:
            port = target.port
        except ValueError:
            port = None
        return f"{(target.hostname or '').lower()}:{port or (443 if target.scheme == 'https' else 80)}"
    return f"{channel.kind}:{channel.pk}"


class Worker:
    def __init__(self, stop_when: Callable[[], bool] = lambda: False):
        self.stop_when = stop_when
        self.listening: psycopg.Connection | None = None
        self.total_slots = settings.NOTIFICATIONS_SEND_THREADS
        self.destination_slots = settings.NOTIFICATIONS_DESTINATION_SLOTS
        # One slot sends in the caller's thread (tests in a transaction of their own, --once with one thread).
        self.senders = (
            ThreadPoolExecutor(self.total_slots, thread_name_prefix="deliver") if self.total_slots > 1 else None
        )
        self.lock = threading.Lock()
        self.busy: Counter[str] = Counter()
        self.channels_of: defaultdict[str, set[str]] = defaultdict(set)
        # Rows this worker is sending: never claimed again meanwhile, even if an attempt outlasts its lease.
        self.sending: set[int] = set()
        # A sender thread writes a byte here when its slot frees, so a sleeping worker claims again at once.
        self.freed_read, self.freed_write = os.pipe()
        os.set_blocking(self.freed_read, False)
        # Closed by close(), or when the worker is dropped (tests make one per round).
        self.close_pipe = weakref.finalize(self, close_fds, self.freed_read, self.freed_write)
        self.last_beat = 0.0
        self.next_digests = 0.0

    def announce(self) -> None:
        """The worker's first line in the log: that it runs, as which process, and how it learns of new events."""
        waking = (
            "listening for new events"
            if connection.vendor == "postgresql"
            else f"looking for new events every {POLL_SECONDS:g} s"
        )
        log.info(
            "delivery worker started: pid %s, %s, at most %s per destination, %s",
            os.getpid(),
            counted(self.total_slots, "send slot", "send slots"),
            self.destination_slots,
            waking,
        )

    def run(self) -> None:
        while not self.stop_when():
            self.beat()
            try:
                self.start_digests()
                started = self.dispatch()
            except DatabaseError as error:
                # The database may be restarting: the rows wait for us, and nothing was lost.
                log.warning("delivery worker: %s", error)
                connections.close_all()
                self.sleep(RECONNECT_SECONDS)
                continue
            if started:
                continue
            if self.in_flight() >= self.total_slots:
                # Every slot is taken: nothing can start before one frees.
                self.wait_freed(IDLE_SECONDS)
            else:
                self.sleep(self.idle_for())

    def beat(self) -> None:
        """Say that the worker runs (``/healthz/details``, the channels page), at most every few seconds."""
        if time.monotonic() - self.last_beat < heartbeats.EVERY_SECONDS:
            return
        try:
            heartbeats.beat(HEARTBEAT_NAME)
        except DatabaseError as error:
            log.warning("delivery worker: no heartbeat (%s)", error)
            return
        self.last_beat = time.monotonic()

    def deliver_due(self) -> int:
        """Send every row due now and wait for the last of them; how many were sent."""
        total = 0
        self.start_digests()
        while not self.stop_when():
            started = self.dispatch()
            total += started
            if not started:
                if not self.in_flight():
                    break
                self.wait_freed(POLL_SECONDS)
        return total

    def dispatch(self) -> int:
        """Start what is due, as far as the slots allow; how many attempts were started."""
        free = self.total_slots - self.in_flight()
        if free <= 0:
            return 0
        started = 0
        with self.lock:
            sending = set(self.sending)
        claimed = outbox.claim(limit=free, excluding_channels=self.full_channels(), excluding=sending)
        if claimed:
            log.info("delivery worker: claimed %s", counted(len(claimed), "delivery", "deliveries"))
        for delivery in claimed:
            destination = destination_of(delivery.channel)
            with self.lock:
                self.channels_of[destination].add(delivery.channel_id)
                full = self.busy[destination] >= self.destination_slots
                if not full:
                    self.busy[destination] += 1
                    self.sending.add(delivery.pk)
            if full:
                outbox.release(delivery)
                continue
            self.start(destination, self.send, delivery)
            started += 1
        return started

    def send(self, delivery) -> None:
        try:
            outcome = outbox.deliver(delivery)
            log.info("%s", attempt_line(delivery, outcome))
        finally:
            with self.lock:
                self.sending.discard(delivery.pk)

    def start_digests(self) -> None:
        """The hourly digests and the invitations' links go out in a slot of their own, one round at a time."""
        with self.lock:
            if self.busy[DIGESTS] or time.monotonic() < self.next_digests:
                return
            self.busy[DIGESTS] += 1
            self.next_digests = time.monotonic() + POLL_SECONDS
        self.start(DIGESTS, mail_due)

    def start(self, destination: str, work: Callable, *args) -> None:
        if self.senders is None:
            self.run_in_slot(destination, work, *args)
        else:
            self.senders.submit(self.run_in_slot, destination, work, *args)

    def run_in_slot(self, destination: str, work: Callable, *args) -> None:
        try:
            work(*args)
        except DatabaseError as error:
            log.warning("delivery worker: %s", error)
        except Exception:
            log.exception("delivery worker: %s failed", destination)
        finally:
            if self.senders is not None:
                # A sender thread keeps its connection between attempts; a broken one is dropped, not reused.
                close_old_connections()
            with self.lock:
                self.busy[destination] -= 1
                if not self.busy[destination]:
                    del self.busy[destination]
            os.write(self.freed_write, b".")

    def in_flight(self) -> int:
        with self.lock:
            return sum(self.busy.values())

    def full_channels(self) -> set[str]:
        """The channels whose destination has no free slot: not claimed until one frees."""
        with self.lock:
            return {
                channel
                for destination, count in self.busy.items()
                if count >= self.destination_slots
                for channel in self.channels_of[destination]
            }

    def idle_for(self) -> float:
        wait = outbox.next_due_in(excluding_channels=self.full_channels())
        return IDLE_SECONDS if wait is None else min(wait, IDLE_SECONDS)

    def wait_freed(self, seconds: float) -> None:
        select.select([self.freed_read], [], [], seconds)
        self.drain_freed()

    def drain_freed(self) -> None:
        try:
            while os.read(self.freed_read, 4096):
                pass
        except BlockingIOError:
            pass

    def sleep(self, seconds: float) -> None:
        if connection.vendor != "postgresql":
            self.wait_freed(min(seconds, POLL_SECONDS))
            return
        try:
            listening = self._listening()
            if any(True for _ in listening.notifies(timeout=0)):
                # Heard while the connection was busy with something else: nothing to wait for.
                return
            select.select([listening.fileno(), self.freed_read], [], [], seconds)
            self.drain_freed()
            for _ in listening.notifies(timeout=0):
                pass
        except psycopg.Error as error:
            log.warning("delivery worker: listening failed (%s)", error)
            self._close_listening()
            self.wait_freed(min(seconds, RECONNECT_SECONDS))

    def _listening(self) -> psycopg.Connection:
        if self.listening is None or self.listening.closed:
            params = {**listening_params(connection), "autocommit": True}
            params["application_name"] = "historyhub deliver"
            self.listening = psycopg.connect(**params)
            self.listening.execute(sql.SQL("LISTEN {}").format(sql.Identifier(WAKE_CHANNEL)))
        return self.listening

    def _close_listening(self) -> None:
        if self.listening is not None:
            self.listening.close()
            self.listening = None

    def close(self) -> None:
        self._close_listening()
        if self.senders is not None:
            self.senders.shutdown()
        self.close_pipe()


def attempt_line(delivery, outcome) -> str:
    """One attempt as the log says it: "delivery 7 (client_action.opened) to channel 'ops' (webhook): delivered,
    200"; else why not and what follows (due again when, or failed for good)."""
    channel = delivery.channel
    answer = f"{outcome.status}" if outcome.status is not None else "no answer"
    said = f"delivery {delivery.pk} ({delivery.event}) to channel {channel.name!r} ({channel.kind}): "
    if outcome.delivered:
        return f"{said}delivered, {answer}"
    why = f"not delivered ({answer}{f': {outcome.excerpt[:200]}' if outcome.excerpt else ''})"
    if delivery.status == DeliveryStatus.FAILED:
        return f"{said}{why}; failed for good after {counted(delivery.attempt_count, 'attempt', 'attempts')}"
    if delivery.next_attempt_at is not None:
        return f"{said}{why}; tried again at {format_time(delivery.next_attempt_at)}"
    return f"{said}{why}"


def counted(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def mail_due() -> None:
    """The mail that is no channel's delivery: the digests that are due, and invitations not mailed yet."""
    digests.send_due()
    invitation_mail.send_due()


def close_fds(*fds: int) -> None:
    for fd in fds:
        os.close(fd)


def parent_gone(parent: int | None = None) -> Callable[[], bool]:
    """A check that says when the process that started this one has ended (bin/start's supervisor)."""
    parent = parent if parent is not None else os.getppid()
    return lambda: os.getppid() != parent

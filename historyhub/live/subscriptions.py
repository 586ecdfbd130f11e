"""The process's subscribers to changes, and how a change reaches them (docs/live-updates.md).

A subscriber is a coroutine on some event loop (the server's, or the one a
test client runs a request in); changes arrive on the listener's thread or on
the thread that committed them. So a wake-up crosses threads with
``loop.call_soon_threadsafe``, and the registry is guarded by a lock.
"""

import asyncio
import contextlib
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass

from historyhub.live import turns


class Closed(Exception):
    """The process is shutting down: whoever waits answers now instead of waiting on."""


@dataclass(frozen=True)
class Changes:
    """What changed since a subscriber last looked; false when nothing did."""

    session_ids: frozenset = frozenset()
    # The signal was interrupted (the listener reconnected): any session may have changed.
    unknown: bool = False

    def __bool__(self):
        return self.unknown or bool(self.session_ids)

    def touches(self, session_id):
        return self.unknown or session_id in self.session_ids


class TooMany(Exception):
    """The owner (an API key, a person) already holds as many waits or streams as it may."""

    def __init__(self, limit):
        super().__init__(limit)
        self.limit = limit


class Subscription:
    """What one waiter or stream hears: the changes its ``Interest`` names (historyhub.live.changes).

    Use it as an async context manager: entering registers it, leaving (a
    client that disconnected cancels the task, which leaves too) removes it.
    ``owner`` and ``limit`` cap how many subscriptions one owner holds at once.
    """

    def __init__(self, hub, interest, owner=None, limit=None):
        self.hub = hub
        self.interest = interest
        self.owner = owner
        self.limit = limit
        self.loop = None
        self._event = None
        self._registered = False
        # Guarded by the hub's lock.
        self._changed = set()
        self._unknown = False
        self._closed = False
        self._scheduled = False

    async def __aenter__(self):
        return self.start()

    async def __aexit__(self, *exc_info):
        self.stop()

    def start(self):
        """Register, on the running event loop; raises ``Closed`` or ``TooMany`` instead when it may not."""
        self.loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        self.hub._add(self)
        self._registered = True
        return self

    def stop(self):
        """Unregister; again is harmless."""
        if self._registered:
            self._registered = False
            self.hub._remove(self)

    async def wait(self, timeout):
        """The changes heard since the last call, as soon as there are any, or no changes after ``timeout`` seconds.

        Raises ``Closed`` once the process shuts down. The request's turn at the database is free meanwhile
        (historyhub.live.turns).
        """
        async with turns.away():
            self.hub._park(1)
            try:
                return await self._wait(timeout)
            finally:
                self.hub._park(-1)

    async def _wait(self, timeout):
        deadline = self.loop.time() + timeout
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    await self._event.wait()
            except TimeoutError:
                pass
            self._event.clear()
            with self.hub._lock:
                if self._closed:
                    raise Closed
                changes = Changes(frozenset(self._changed), self._unknown)
                self._changed, self._unknown, self._scheduled = set(), False, False
            # A wake-up scheduled before the last take finds nothing new: wait on.
            if changes or self.loop.time() >= deadline:
                return changes

    def _hear(self, session_ids=(), unknown=False, closed=False):
        """Record a change and wake the subscriber's loop once; called with the hub's lock held, from any thread."""
        self._changed.update(session_ids)
        self._unknown |= unknown
        self._closed |= closed
        if self._scheduled:
            return
        self._scheduled = True
        # A closed loop raises: its subscriber is gone with it.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self._event.set)


class SignalThread(ABC):
    """The process's one listener for announcements from other processes: a daemon thread
    running ``_run`` until ``stop``, which checks ``_stopping`` at least once a second.
    Each database has its own: ``postgresql.Listener`` and ``sqlite.Watcher``."""

    def __init__(self, hub):
        self.hub = hub
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="historyhub-live", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stopping.set()
        self._thread.join()

    @abstractmethod
    def _run(self):
        """Hear announcements and hand them to ``self.hub`` until ``_stopping`` is set."""


class Hub:
    """Every subscription of this process, indexed by what it hears, and the signal that feeds them.

    A change reaches only the subscriptions interested in it: a decision wakes
    the waiters of its action, not the thousand others of its session.
    ``start_signal`` makes the process's one listener (LISTEN on PostgreSQL,
    the change file on SQLite) and ``start_ticker`` its expiry ticker
    (historyhub.live.expiry); both start when the first subscriber arrives
    that needs them, so a process that never waits never listens.
    """

    def __init__(self, start_signal, start_ticker=None):
        self._start_signal = start_signal
        self._start_ticker = start_ticker
        self._lock = threading.Lock()
        self._by_session = {}
        self._by_action = {}
        self._actions_by_session = {}
        self._inbox = {}
        self._by_project = {}
        self._owned = {}
        self._count = 0
        # Of those, how many wait for a change now (the rest read or write what they serve).
        self._parked = 0
        self._closed = False
        self._signal = None
        self._ticker = None

    def listen(self, interest, owner=None, limit=None):
        return Subscription(self, interest, owner, limit)

    def publish(self, changes):
        """Wake the subscriptions each change concerns (``changes``: historyhub.live.changes.Change)."""
        ticker = None
        with self._lock:
            for change in changes:
                for subscription in self._hearing(change):
                    subscription._hear((change.session,))
                if change.inbox:
                    ticker = self._ticker
        if ticker is not None:
            ticker.poke()

    def publish_unknown(self):
        """Wake everyone to look again: changes may have been missed while the signal was down."""
        with self._lock:
            for subscription in self._all():
                subscription._hear(unknown=True)
            ticker = self._ticker
        if ticker is not None:
            ticker.poke()

    def close(self):
        """The process is shutting down: every waiter and stream ends now, and nobody new may subscribe."""
        with self._lock:
            self._closed = True
            for subscription in self._all():
                subscription._hear(closed=True)

    def stop_signal(self):
        """Stop listening (a test run does, before its database is dropped); the next subscriber starts again."""
        with self._lock:
            signal, self._signal = self._signal, None
            ticker, self._ticker = self._ticker, None
        for thread in (signal, ticker):
            if thread is not None:
                thread.stop()

    def subscriber_count(self):
        with self._lock:
            return self._count

    def parked_count(self):
        """The subscriptions waiting for a change now: a wait counts once its first read is done."""
        with self._lock:
            return self._parked

    def _park(self, step):
        with self._lock:
            self._parked += step

    def _hearing(self, change):
        """The subscriptions that hear ``change``: read off the indexes, never by asking each one."""
        project = change.project
        hearing = set(self._by_project.get(project, ()))
        hearing.update(self._by_session.get(change.session, ()))
        if change.inbox:
            hearing.update(self._inbox.get(project, ()))
        if change.all_actions:
            hearing.update(self._actions_by_session.get(change.session, ()))
        else:
            for call_id in change.actions:
                hearing.update(self._by_action.get((change.session, call_id), ()))
        return hearing

    def _all(self):
        for index in (self._by_project, self._inbox, self._by_session, self._by_action):
            for group in index.values():
                yield from group

    def _indexes(self, interest):
        """The (index, key) pairs a subscription of ``interest`` is kept in."""
        if interest.project is not None:
            yield self._by_project, interest.project
        if interest.session is not None:
            yield self._by_session, interest.session
        if interest.action is not None:
            yield self._by_action, interest.action
            yield self._actions_by_session, interest.action[0]
        if interest.inbox is not None:
            yield self._inbox, interest.inbox

    def _add(self, subscription):
        with self._lock:
            if self._closed:
                raise Closed
            owner = subscription.owner
            if owner is not None and subscription.limit is not None:
                if self._owned.get(owner, 0) >= subscription.limit:
                    raise TooMany(subscription.limit)
                self._owned[owner] = self._owned.get(owner, 0) + 1
            for index, key in self._indexes(subscription.interest):
                index.setdefault(key, set()).add(subscription)
            self._count += 1
            if self._signal is None:
                self._signal = self._start_signal(self)
            interest = subscription.interest
            pages = interest.inbox is not None or interest.project is not None
            if self._ticker is None and self._start_ticker is not None and pages:
                self._ticker = self._start_ticker(self)

    def _remove(self, subscription):
        ticker = None
        with self._lock:
            for index, key in self._indexes(subscription.interest):
                group = index.get(key)
                if group is not None:
                    group.discard(subscription)
                    if not group:
                        del index[key]
            self._count -= 1
            owner = subscription.owner
            if owner is not None and subscription.limit is not None:
                self._owned[owner] -= 1
                if not self._owned[owner]:
                    del self._owned[owner]
            if not self._inbox and not self._by_project:
                # No page is open: nothing to tick for (the next page starts another).
                ticker, self._ticker = self._ticker, None
        if ticker is not None:
            ticker.stop(wait=False)

"""The process's subscribers to session changes, and how a change reaches them.

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


class Subscription:
    """What one waiter or stream hears: one session's changes, or every session's (``session_id`` None).

    Use it as an async context manager: entering registers it, leaving (a
    client that disconnected cancels the task, which leaves too) removes it.
    """

    def __init__(self, hub, session_id):
        self.hub = hub
        self.session_id = session_id
        self.loop = None
        self._event = None
        # Guarded by the hub's lock.
        self._changed = set()
        self._unknown = False
        self._closed = False
        self._scheduled = False

    async def __aenter__(self):
        self.loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        self.hub._add(self)
        return self

    async def __aexit__(self, *exc_info):
        self.hub._remove(self)

    async def wait(self, timeout):
        """The changes heard since the last call, as soon as there are any, or no changes after ``timeout`` seconds.

        Raises ``Closed`` once the process shuts down.
        """
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
    """Every subscription of this process, by session, and the signal that feeds them.

    ``start_signal`` makes the process's one listener (LISTEN on PostgreSQL,
    the change file on SQLite); it is called when the first subscriber arrives,
    so a process that never waits never listens.
    """

    def __init__(self, start_signal):
        self._start_signal = start_signal
        self._lock = threading.Lock()
        self._by_session = {}
        self._everything = set()
        self._closed = False
        self._signal = None

    def listen(self, session_id=None):
        return Subscription(self, session_id)

    def publish(self, session_ids):
        """Wake the subscribers of these sessions and those of every session."""
        with self._lock:
            for subscription in self._everything:
                subscription._hear(session_ids)
            for session_id in session_ids:
                for subscription in self._by_session.get(session_id, ()):
                    subscription._hear((session_id,))

    def publish_unknown(self):
        """Wake everyone to look again: changes may have been missed while the signal was down."""
        with self._lock:
            for subscription in self._all():
                subscription._hear(unknown=True)

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
        if signal is not None:
            signal.stop()

    def subscriber_count(self):
        with self._lock:
            return len(self._everything) + sum(len(group) for group in self._by_session.values())

    def _all(self):
        yield from self._everything
        for group in self._by_session.values():
            yield from group

    def _add(self, subscription):
        with self._lock:
            if self._closed:
                raise Closed
            if subscription.session_id is None:
                self._everything.add(subscription)
            else:
                self._by_session.setdefault(subscription.session_id, set()).add(subscription)
            if self._signal is None:
                self._signal = self._start_signal(self)

    def _remove(self, subscription):
        with self._lock:
            if subscription.session_id is None:
                self._everything.discard(subscription)
                return
            group = self._by_session.get(subscription.session_id)
            if group is not None:
                group.discard(subscription)
                if not group:
                    del self._by_session[subscription.session_id]

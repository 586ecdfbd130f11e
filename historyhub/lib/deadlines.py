"""One deadline for a whole exchange with the outside world (docs/notifications.md, "One destination never delays
another"): connecting, sending and reading the whole answer, however the other side paces its bytes.

A socket's own timeout bounds each read, not the exchange: a receiver that sends one byte every 5 s never reaches
a 15 s timeout. So every socket a thread connects while it holds a ``Deadline`` is watched, whichever library
connects it (``http.client`` for webhooks, ``smtplib`` for email, ``slack_sdk``'s ``urllib`` for Slack): the
interpreter's ``socket.connect`` audit event names it, and a copy of its descriptor is kept. When the deadline
passes, one reaper thread shuts that socket down, which ends whatever read or write is blocked on it at once; a
connect after the deadline is refused. Nothing is cut once the exchange has ended: the copies are closed then.
"""

import heapq
import itertools
import socket
import sys
import threading
import time
from contextlib import suppress
from typing import Any


class DeadlinePassed(TimeoutError):
    """A connect attempted after the exchange's deadline."""


_current = threading.local()


class Deadline:
    """``with Deadline(15) as deadline:`` bounds every socket this thread connects inside the block."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self._cut = False
        self._ended_at: float | None = None
        self._finished = False
        self._watched: list[socket.socket] = []
        self._lock = threading.Lock()

    def __enter__(self) -> "Deadline":
        _install()
        self._outer = getattr(_current, "deadline", None)
        _current.deadline = self
        reaper.add(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        # What ended by now ended in time: a look at ``passed`` after the block judges the block, not the look.
        self._ended_at = time.monotonic()
        _current.deadline = self._outer
        with self._lock:
            self._finished = True
            watched, self._watched = self._watched, []
        for copy in watched:
            copy.close()

    @property
    def passed(self) -> bool:
        """Whether the time is over: cut by the reaper, or due and not yet cut. A socket's own timeout of the same
        length can fire before the reaper's thread gets its turn on a busy machine, and what it ended is just as
        much an exchange that took too long."""
        ended_at = self._ended_at if self._ended_at is not None else time.monotonic()
        return self._cut or ended_at >= self.at

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            if self.passed:
                raise DeadlinePassed(f"the {self.seconds:g} s for this exchange are over")
            if not self._finished:
                # A copy of the descriptor: it outlives the library's own object (a TLS wrap detaches it) and is
                # ours to close, so a cut can never reach a descriptor number reused by someone else.
                self._watched.append(socket.fromfd(sock.fileno(), sock.family, sock.type))

    def cut(self) -> None:
        """Shut down every socket of the exchange: whatever blocks on one returns now."""
        with self._lock:
            if self._finished:
                return
            self._cut = True
            for copy in self._watched:
                with suppress(OSError):
                    copy.shutdown(socket.SHUT_RDWR)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect":
        deadline = getattr(_current, "deadline", None)
        if deadline is not None:
            deadline.watch(args[0])


_installed = threading.Lock()
_hooked = False


def _install() -> None:
    """Audit hooks stay for the life of the process: one is added, the first time a deadline is used."""
    global _hooked
    with _installed:
        if not _hooked:
            sys.addaudithook(_audit)
            _hooked = True


class Reaper:
    """One daemon thread that cuts each deadline's sockets when its time comes."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, deadline: Deadline) -> None:
        with self._changed:
            heapq.heappush(self._heap, (deadline.at, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="deadlines", daemon=True)
                self._thread.start()
            self._changed.notify()

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    self._changed.wait(self._heap[0][0] - time.monotonic() if self._heap else None)
                _, _, deadline = heapq.heappop(self._heap)
            deadline.cut()


reaper = Reaper()

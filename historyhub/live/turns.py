"""Turns at the database for the requests that wait: waits and live streams (docs/live-updates.md, "Turns").

A wait uses the database a few times before it parks (its key, its place, its first read) and once more when it
wakes; a live stream likewise. Each of those steps runs on a thread with a connection of the process's pool.
Thousands of waits opening together (a fleet of agents restarting) would each start a thread and queue in the
pool, whose few connections they would share with every other request; those still queued after
``DATABASE_POOL_TIMEOUT`` answered 503, and ordinary requests starved beside them.

So each such request takes a turn first, on the event loop, where queueing costs a coroutine: at most
``LIVE_DATABASE_TURNS`` of a process's waiting requests work at once, in the order they came. A request holds its
turn while it works (authentication, its place, its reads, its answer), gives it back while it is parked
(``Subscription.wait``) and takes one again when it wakes, ahead of every request that has not had one yet: a
woken wait finishes and frees what it holds. A request that has had no turn within ``LIVE_TURN_QUEUE_SECONDS``
is answered 503 with Retry-After (``Busy``), before Django or the database saw it: nothing was done, and asking
again is safe. Its Retry-After is how long the queue ahead of it would take to go through at the pace turns were
handed out lately (``Gate.drain_seconds``), so that a larger burst comes back more spread out instead of all five
seconds later. A wait counts the time it queued against its own seconds (``queued``).
"""

import asyncio
import contextlib
import contextvars
import math
import weakref
from collections import deque

from django.conf import settings

# Retry-After's bounds, in seconds: one at least, and at most the longest pause HistoryHub's Python and JavaScript
# clients wait out before asking again (a longer one they would not wait for, and raise the 503 to the agent).
SOONEST_RETRY, LATEST_RETRY = 1, 30
# Turns handed out to arriving requests that the pace is measured over: the latest ones, within the queue's time.
PACE_SAMPLE = 256


class Busy(Exception):
    """No turn came within the queue's time: the process has more waits opening than it can take in."""

    def __init__(self, retry_after: int):
        super().__init__(retry_after)
        # Seconds until asking again is likely to find a turn (Gate.drain_seconds).
        self.retry_after = retry_after


class Gate:
    """``size`` turns of one event loop, handed out first to requests resuming, then to requests arriving,
    each queue in order."""

    def __init__(self, size):
        self.size = size
        self.busy = 0
        self._resuming = deque()
        self._arriving = deque()
        # When (the loop's time) the latest arriving requests got their turn: the pace the queue moves at.
        self._admitted: deque[float] = deque(maxlen=PACE_SAMPLE)

    def queued(self):
        return len(self._resuming) + len(self._arriving)

    async def enter(self, timeout=None, resuming=False):
        """Take a turn; raises ``Busy`` when none came within ``timeout`` seconds (None: wait as long as it takes)."""
        ahead = self._resuming or (not resuming and self._arriving)
        if self.busy < self.size and not ahead:
            self.busy += 1
            self._admit(resuming)
            return
        future = asyncio.get_running_loop().create_future()
        queue = self._resuming if resuming else self._arriving
        queue.append(future)
        try:
            async with asyncio.timeout(timeout):
                await future
            self._admit(resuming)
        except BaseException as error:
            if future.done() and not future.cancelled():
                # Handed a turn just as the time ran out (or the client went away): pass it on.
                self.leave()
            else:
                future.cancel()
                with contextlib.suppress(ValueError):
                    queue.remove(future)
            if isinstance(error, TimeoutError):
                raise Busy(self.drain_seconds(timeout)) from None
            raise

    def _admit(self, resuming):
        if not resuming:
            self._admitted.append(asyncio.get_running_loop().time())

    def leave(self):
        """Give a turn back: to the next one queued, or to the gate."""
        for queue in (self._resuming, self._arriving):
            while queue:
                future = queue.popleft()
                if not future.done():
                    future.set_result(None)
                    return
        self.busy -= 1

    def drain_seconds(self, window):
        """Retry-After for a request that queued ``window`` seconds in vain (``drain_estimate``)."""
        return drain_estimate(self._admitted, len(self._arriving), asyncio.get_running_loop().time(), window)


def drain_estimate(admitted, queued, now, window):
    """Seconds the ``queued`` arriving requests, and one more, would take to get a turn at the pace of those
    ``admitted`` (their times) within the last ``window`` seconds before ``now``, between SOONEST_RETRY and
    LATEST_RETRY. Without a pace (fewer than two admitted: turns have stopped coming), the ``window`` itself: as
    long as a request just queued in vain."""
    recent = [moment for moment in admitted if moment >= now - window]
    if len(recent) < 2 or now <= recent[0]:
        return max(SOONEST_RETRY, min(LATEST_RETRY, math.ceil(window)))
    seconds_per_turn = (now - recent[0]) / (len(recent) - 1)
    return max(SOONEST_RETRY, min(LATEST_RETRY, math.ceil((queued + 1) * seconds_per_turn)))


class Turn:
    """One request's turn: held or not, taken again after each wait."""

    def __init__(self, gate):
        self.gate = gate
        self.held = False
        # Seconds the request queued for its first turn: a wait counts them against its own (``queued``).
        self.queued = 0.0

    async def take(self, timeout=None, resuming=False):
        await self.gate.enter(timeout, resuming)
        self.held = True

    def give_back(self):
        if self.held:
            self.held = False
            self.gate.leave()


_gates: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Gate]" = weakref.WeakKeyDictionary()
_current: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("historyhub_live_turn", default=None)


def gate():
    """The running event loop's gate (a worker runs one loop; a test may run several)."""
    loop = asyncio.get_running_loop()
    found = _gates.get(loop)
    if found is None:
        found = _gates[loop] = Gate(settings.LIVE_DATABASE_TURNS)
    return found


@contextlib.asynccontextmanager
async def turn():
    """A turn for the whole request, given back while it is parked (``away``) and when it ends. Raises ``Busy``
    before the block runs when none came within LIVE_TURN_QUEUE_SECONDS."""
    held = Turn(gate())
    loop = asyncio.get_running_loop()
    arrived = loop.time()
    await held.take(settings.LIVE_TURN_QUEUE_SECONDS)
    held.queued = loop.time() - arrived
    token = _current.set(held)
    try:
        yield held
    finally:
        _current.reset(token)
        held.give_back()


@contextlib.asynccontextmanager
async def away():
    """Around a park: the request's turn (if it holds one) is free meanwhile and taken again, ahead of newcomers,
    once the block has returned; not when it raised (the request is ending)."""
    held = _current.get()
    if held is None or not held.held:
        yield
        return
    held.give_back()
    yield
    await held.take(resuming=True)


def finished():
    """The request needs the database no more (a live stream, once its view has answered): its turn is given
    back for good, and its parks take none again."""
    held = _current.get()
    if held is not None:
        held.give_back()
        _current.set(None)


def queued():
    """Seconds the request queued for its first turn (0 without one): a wait of S seconds answers S seconds after
    the request came, not after its turn, so a client's time for it (S plus a margin) holds under a queue."""
    held = _current.get()
    return held.queued if held is not None else 0.0

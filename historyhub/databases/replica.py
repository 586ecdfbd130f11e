"""Whether the replica may be read: it answers, and is at most DATABASE_REPLICA_MAX_LAG_SECONDS behind.

The answer is kept for ``CHECK_SECONDS``: one request in that time probes, the
others use what it found. A probe has ``PROBE_SECONDS``: a replica that does not
answer by then (down, restarting, or held by a pooler that waits for it) is not
read until a later probe finds it back, so a dead replica costs the pages at most
one short wait a second, never an error.

The lag is what the primary measures (``pg_stat_replication.replay_lag``: from a
commit's flush on the primary to its replay on the standby, growing while replay
is stuck). The replica's own clock of its last replayed commit would count the
quiet time between commits as lag.
"""

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

logger = logging.getLogger(__name__)

ALIAS = "replica"
CHECK_SECONDS = 1.0
PROBE_SECONDS = 1.0

# How many standbys stream from the primary, and the largest replay lag among them, in seconds.
LAG_QUERY = """
SELECT count(*), COALESCE(max(EXTRACT(EPOCH FROM replay_lag)), 0)
FROM pg_stat_replication WHERE state = 'streaming'
"""


@dataclass(frozen=True)
class ReplicaState:
    usable: bool
    # Seconds behind the primary; None when the replica did not answer.
    lag_seconds: float | None
    # Why it is not usable; empty when it is.
    reason: str = ""

    def as_json(self) -> dict:
        return {"usable": self.usable, "lagSeconds": self.lag_seconds, "reason": self.reason or None}


def configured() -> bool:
    return ALIAS in connections.settings


def probe() -> ReplicaState:
    """Ask the replica whether it answers and is a standby, and the primary how far behind it is."""
    # A connection of its own, made from the alias's settings as they are now, and closed afterwards.
    replica = connections.create_connection(ALIAS)
    try:
        with replica.cursor() as cursor:
            if replica.vendor != "postgresql":
                return ReplicaState(usable=True, lag_seconds=0.0)
            cursor.execute("SELECT pg_is_in_recovery()")
            (standby,) = cursor.fetchone()
    except DatabaseError as error:
        return ReplicaState(usable=False, lag_seconds=None, reason=f"it did not answer ({type(error).__name__})")
    finally:
        replica.close()
    if not standby:
        # The primary itself under another name: never behind.
        return ReplicaState(usable=True, lag_seconds=0.0)
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute(LAG_QUERY)
            streaming, lag = cursor.fetchone()
    except DatabaseError as error:
        return ReplicaState(usable=False, lag_seconds=None, reason=f"the primary did not say ({type(error).__name__})")
    finally:
        connections[DEFAULT_DB_ALIAS].close()
    lag = float(lag)
    if not streaming:
        return ReplicaState(usable=False, lag_seconds=None, reason="it does not stream from the primary")
    limit = settings.DATABASE_REPLICA_MAX_LAG_SECONDS
    if lag > limit:
        return ReplicaState(usable=False, lag_seconds=lag, reason=f"it is {lag:.1f} s behind (limit {limit} s)")
    return ReplicaState(usable=True, lag_seconds=lag)


class Status:
    """The process's last answer to "may the replica be read?", renewed at most every CHECK_SECONDS."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: ReplicaState | None = None
        self._checked = 0.0
        self._probing = False
        # Its own thread (and so its own connections): a probe held up does not hold up a request.
        self._prober = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replica-probe")

    def current(self) -> ReplicaState:
        with self._lock:
            if self._state is not None and (self._probing or time.monotonic() - self._checked < CHECK_SECONDS):
                # Fresh, or another request is asking the replica right now: its last answer will do.
                return self._state
            self._probing = True
        probing = self._prober.submit(probe)
        probing.add_done_callback(self._probed)
        try:
            return probing.result(timeout=PROBE_SECONDS)
        except FutureTimeout:
            # The probe goes on and records what it finds; until then the replica is not read.
            state = ReplicaState(usable=False, lag_seconds=None, reason=f"it did not answer within {PROBE_SECONDS} s")
            with self._lock:
                # Unless it has just finished (its own answer is recorded then): done is set before its callback.
                if not probing.done():
                    self._state, self._checked = state, time.monotonic()
            return state

    def _probed(self, probing: Future) -> None:
        error = probing.exception()
        state = probing.result() if error is None else ReplicaState(False, None, f"the probe failed ({error})")
        self._record(state, probing=False)

    def failed(self, error: Exception) -> None:
        """A read on the replica failed although the last probe found it usable: not until the next probe."""
        self._record(ReplicaState(usable=False, lag_seconds=None, reason=f"a read failed ({type(error).__name__})"))

    def forget(self) -> None:
        """Ask again on the next read (the replica's settings changed: a test's own replica)."""
        with self._lock:
            self._state, self._checked = None, 0.0

    def _record(self, state: ReplicaState, probing: bool = False) -> None:
        with self._lock:
            self._probing = probing
            if self._state is None or self._state.usable != state.usable:
                if state.usable:
                    logger.info("Replica: reading from it again")
                else:
                    logger.warning("Replica: reading from the primary instead, %s", state.reason)
            self._state = state
            self._checked = time.monotonic()


status = Status()

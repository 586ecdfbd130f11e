"""Live updates: every write announces what it changed; waits and dashboard streams hear it (docs/live-updates.md).

- ``announce(*changes)`` is called inside each write transaction with a
  ``Change`` (historyhub.live.changes), or several. It is delivered to every server
  process if and when that transaction commits.
- ``listen(interest, owner=None, limit=None)`` is an async context manager
  whose ``wait(timeout)`` returns the ``Changes`` heard that the ``Interest``
  names, or raises ``Closed`` when the process shuts down; ``TooMany`` when
  ``owner`` already holds ``limit`` subscriptions in this process.
- ``hold(owner, limit)`` takes one of ``owner``'s ``limit`` places for the whole
  installation (``holds``), or raises ``TooMany``; ``release_soon`` gives it
  back, ``holding`` does both around a block, ``releasing`` when a stream ends.
- ``turns``: at most LIVE_DATABASE_TURNS waiting requests of a process use the database at once; the others
  queue on the event loop (historyhub.live.turns).
- ``read(function, ...)`` runs a short database read from a coroutine and gives
  back its connection and its thread, so a request that goes on waiting holds
  neither.
"""

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync, sync_to_async
from django.db import connection

from historyhub.lib import commits
from historyhub.live import holds, postgresql, sqlite, turns
from historyhub.live.changes import Change, Interest
from historyhub.live.expiry import ExpiryTicker
from historyhub.live.subscriptions import Changes, Closed, Hub, TooMany
from historyhub.postgresql.listening import listening_params

T = TypeVar("T")

__all__ = [
    "Change", "Changes", "Closed", "Interest", "TooMany", "announce", "announcement", "close", "hold", "holding",
    "hub", "listen", "read", "release_soon", "releasing", "turns",
]  # fmt: skip


class NoSignal:
    """An in-memory SQLite database has one process: announcing in it is the whole signal."""

    def stop(self):
        pass


def start_signal(hub):
    if connection.vendor == "postgresql":
        return postgresql.Listener(hub, listening_params(connection)).start()
    changes = change_file()
    return sqlite.Watcher(hub, changes).start() if changes is not None else NoSignal()


def start_ticker(hub):
    return ExpiryTicker(hub).start()


hub = Hub(start_signal, start_ticker)


def announce(*changes):
    """Tell every server process of each change, once the open transaction commits (now, outside one).

    Nothing is delivered if the transaction rolls back. Many changes at once (a batch of deleted sessions)
    cost one query, not one each.
    """
    if connection.vendor == "postgresql":
        postgresql.announce(connection, changes)
    else:
        for change in changes:
            commits.after_commit_robust(_committed_on_sqlite, change)


def announcement(change):
    """``change``'s announcement as an SQL expression and its parameters, for a statement the write runs anyway
    to evaluate (PostgreSQL: ``pg_notify``, delivered on commit as ``announce``'s is); None on SQLite, where
    ``announce`` is the way."""
    if connection.vendor == "postgresql":
        return postgresql.notify_call(change)
    return None


def listen(interest, owner=None, limit=None):
    return hub.listen(interest, owner, limit)


async def hold(owner, limit):
    """One of ``owner``'s ``limit`` places in the whole installation (its id); raises ``TooMany`` when all are held."""
    return await read(holds.acquire, owner, limit)


def release_soon(place):
    """Give the place back on the process's releasing thread (``holds.release_soon``): a cancelled request (its
    client went away) cannot wait."""
    holds.release_soon(place)


@contextlib.asynccontextmanager
async def holding(owner, limit):
    place = await hold(owner, limit)
    try:
        yield
    finally:
        release_soon(place)


async def releasing(events: AsyncIterator, place) -> AsyncIterator:
    """``events`` as they come, and the place given back when they end (the page closed, the server stops)."""
    try:
        async for event in events:
            yield event
    finally:
        release_soon(place)


def close():
    """End every wait and stream of this process: it is shutting down (``historyhub.serving``)."""
    hub.close()


async def read(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)``, a synchronous read of the database, run from async code."""
    try:
        return await sync_to_async(_read_and_release)(function, *args, **kwargs)
    finally:
        _release_request_thread()


def _release_request_thread():
    """Django's ASGI handler gives each request a thread for its synchronous parts (asgiref's
    ThreadSensitiveContext) and keeps it, idle, until the answer is sent. Between its reads a wait
    or a stream gives it back; the next synchronous step of the request starts another."""
    context = SyncToAsync.thread_sensitive_context.get(None)
    executor = SyncToAsync.context_to_thread_executor.pop(context, None) if context is not None else None
    if executor is not None:
        executor.shutdown(wait=False)


def _read_and_release(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    finally:
        # Back to the pool (or closed, on SQLite) before the caller waits; not inside a test's transaction.
        if not connection.in_atomic_block:
            connection.close()


def _committed_on_sqlite(change):
    hub.publish((change,))
    changes = change_file()
    if changes is not None:
        changes.append(change)


def change_file():
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return None
    return sqlite.ChangeFile(f"{connection.settings_dict['NAME']}.changes")

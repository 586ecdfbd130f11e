"""The database router, and the views whose reads it may send to the replica (docs/scaling.md, "Reads").

A view marked ``@replica_reads`` reads from the replica, if one is configured, usable
(``replica.status``), and the person is not pinned to the primary by a write of their
own (``pinning``). A live refresh (a request with ``since``, answering a change the
primary just announced) reads the primary: the replica may not have replayed that
change yet. Every other read, and every write, is the primary's. If a read on the
replica fails, the view runs again on the primary: a dead replica is never an error.
"""

import contextvars
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest, HttpResponse

from historyhub.databases import pinning, replica

_reading = contextvars.ContextVar("historyhub_read_alias", default=DEFAULT_DB_ALIAS)


class PrimaryOrReplica:
    """Writes, migrations and unmarked reads go to the primary; reads inside a ``replica_reads`` view where it chose."""

    def db_for_read(self, model: type, **hints: Any) -> str:
        return _reading.get()

    def db_for_write(self, model: type, **hints: Any) -> str:
        # Explicitly the primary: an object read from the replica would otherwise be saved back there.
        return DEFAULT_DB_ALIAS

    def allow_relation(self, first: Any, second: Any, **hints: Any) -> bool:
        # The replica holds the primary's rows: an object from either may point at one from the other.
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS


def read_alias(request: HttpRequest) -> str:
    """Where a ``replica_reads`` view of ``request`` reads."""
    if not replica.configured() or "since" in request.GET or pinning.pinned(request):
        return DEFAULT_DB_ALIAS
    return replica.ALIAS if replica.status.current().usable else DEFAULT_DB_ALIAS


def replica_reads(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The view's reads may be a few seconds stale: they go to the replica when it may be read."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        alias = read_alias(request)
        token = _reading.set(alias)
        try:
            return view(request, *args, **kwargs)
        except DatabaseError as error:
            if alias == DEFAULT_DB_ALIAS:
                raise
            # The replica went away since it was last asked: this read, and the next ones, on the primary.
            replica.status.failed(error)
            connections[replica.ALIAS].close()
            _reading.set(DEFAULT_DB_ALIAS)
            return view(request, *args, **kwargs)
        finally:
            _reading.reset(token)

    wrapper.reads_from_replica = True  # type: ignore[attr-defined]
    return wrapper

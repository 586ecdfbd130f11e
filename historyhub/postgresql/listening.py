"""The parameters of a LISTEN connection: the primary itself, even when requests go through PgBouncer.

PgBouncer in transaction mode gives a client's server connection to another
client once a statement outside a transaction ends, so a LISTEN through it
would listen on a connection someone else now uses, and hear nothing
(docs/scaling.md). DATABASE_LISTEN_URL names the primary; without it, LISTEN
goes where DATABASE_URL does.
"""

from typing import Any

from django.conf import settings
from django.db.backends.base.base import BaseDatabaseWrapper


def listening_params(connection: BaseDatabaseWrapper) -> dict[str, Any]:
    params = connection.get_connection_params()
    if settings.DATABASE_LISTEN:
        # DATABASE_URL's password is not the primary's: only what DATABASE_LISTEN_URL says counts.
        params.pop("password", None)
        params.update({key: value for key, value in settings.DATABASE_LISTEN.items() if value})
    return params

"""Django's PostgreSQL backend, with a pool that gets over a database restart at once.

Each connection the pool hands out is looked at first (Django's CONN_HEALTH_CHECKS
would have psycopg_pool do it, but psycopg_pool pauses longer after each failed
check, and after a restart every idle connection fails: a request would sleep
through them until the pool's timeout). Here one failed check drains the pool
and the request takes a new connection.

The look costs no round trip for a connection back from a request a moment
ago (``QUIET_SECONDS``) whose socket the server has said nothing on since: a
restart, ``pg_terminate_backend`` or a pooler going away all end the server's
side with a last message or a close, which makes the socket readable. Any
other connection (idle longer, or with something to read) is asked with an
empty query, as every one used to be: a machine that rebooted, or a firewall
that forgot the connection, says nothing on the socket, and takes longer than
that to do it. Under load, requests then go without the question's round trip
(docs/operations.md, "Restarts").
"""

import select
import time

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

# How long after a request returned a connection the next may take it unasked, when its socket is quiet.
QUIET_SECONDS = 2.0


def heard_from_server(connection):
    """Whether the server sent this idle connection anything (a goodbye, a notice, the end of the socket)."""
    if connection.closed or connection.broken:
        return True
    # poll, not select: a server holding thousands of waits' sockets has descriptors past select's limit of 1,024.
    poller = select.poll()
    try:
        poller.register(connection.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError, psycopg.Error):
        return True


def needs_asking(connection):
    """Whether a connection from the pool must answer an empty query before a request may use it."""
    returned_at = getattr(connection, "historyhub_returned_at", None)
    if returned_at is None or time.monotonic() - returned_at > QUIET_SECONDS:
        return True
    return heard_from_server(connection)


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if self.pool is None or not needs_asking(connection):
            return connection
        try:
            ConnectionPool.check_connection(connection)
        except psycopg.Error:
            self.pool.putconn(connection)
            # The server closed it (a restart, an administrator, a network cut):
            # the connections idle beside it went the same way.
            self.pool.drain()
            connection = super().get_new_connection(conn_params)
        return connection

    def _close(self):
        if self.pool and self.connection is not None:
            # When it went back: the next request within QUIET_SECONDS may take it unasked.
            self.connection.historyhub_returned_at = time.monotonic()
        return super()._close()

"""Django's PostgreSQL backend, with a pool that gets over a database restart at once.

Each connection the pool hands out is checked first (Django's CONN_HEALTH_CHECKS
would have psycopg_pool do it, but psycopg_pool pauses longer after each failed
check, and after a restart every idle connection fails: a request would sleep
through them until the pool's timeout). Here one failed check drains the pool
and the request takes a new connection.
"""

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if self.pool is None:
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

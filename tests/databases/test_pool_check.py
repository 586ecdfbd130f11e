"""The look a pooled PostgreSQL connection gets before a request uses it (historyhub/postgresql/base.py,
docs/operations.md "Restarts"): asked with a round trip only when it may have died unseen.

A whole restart behind the production server is tests/test_production_faults.py's."""

import select
import time

import psycopg
import pytest
from django.db import connection
from psycopg_pool import ConnectionPool

from historyhub.postgresql import base

pytestmark = pytest.mark.django_db(transaction=True)


def connect(**options):
    database = connection.settings_dict
    return psycopg.connect(
        dbname=database["NAME"],
        user=database["USER"],
        host=database["HOST"] or None,
        port=database["PORT"] or None,
        password=database["PASSWORD"] or None,
        **options,
    )


@pytest.fixture
def idle():
    """A connection of its own, idle as one in the pool is."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's connections")
    with connect() as conn:
        yield conn


@pytest.fixture
def patient(monkeypatch):
    """A moment as long as an hour, so a loaded machine's pause between two lines changes nothing."""
    monkeypatch.setattr(base, "QUIET_SECONDS", 3600.0)


def test_a_connection_back_a_moment_ago_with_a_quiet_socket_is_used_unasked(idle, patient):
    idle.historyhub_returned_at = time.monotonic()

    assert not base.heard_from_server(idle)
    assert not base.needs_asking(idle)


def test_a_connection_never_returned_or_idle_longer_is_asked(idle):
    assert base.needs_asking(idle)

    idle.historyhub_returned_at = time.monotonic() - base.QUIET_SECONDS - 1
    assert base.needs_asking(idle)


def test_a_connection_the_server_ended_a_moment_ago_is_asked_and_fails_the_question(idle):
    idle.historyhub_returned_at = time.monotonic()
    with connect(autocommit=True) as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [idle.info.backend_pid]).fetchone()[0]
    # The server's goodbye reaches the socket (it is sent before the backend ends).
    select.select([idle.fileno()], [], [], 30)

    assert base.heard_from_server(idle)
    assert base.needs_asking(idle)
    with pytest.raises(psycopg.OperationalError):
        ConnectionPool.check_connection(idle)


def test_a_closed_connection_is_asked(idle):
    idle.historyhub_returned_at = time.monotonic()
    idle.close()

    assert base.needs_asking(idle)


def test_a_request_s_connection_going_back_to_the_pool_remembers_when(patient):
    if connection.vendor != "postgresql" or connection.pool is None:
        pytest.skip("PostgreSQL's connection pool")
    connection.ensure_connection()
    pooled = connection.connection
    connection.close()  # back to the pool, as at the end of a request

    assert pooled.historyhub_returned_at <= time.monotonic()
    assert not base.needs_asking(pooled)

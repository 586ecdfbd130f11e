"""Many rows in one statement (historyhub.lib.bulk), and what a lost connection does to it."""

import psycopg
import pytest
from django.db import OperationalError, connection

from historyhub.history.models import Session
from historyhub.lib import bulk


def end_backend(pid):
    """What a PostgreSQL restart does to a connection: the server ends it."""
    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        dbname=settings["NAME"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


@pytest.mark.django_db(transaction=True)
def test_a_copy_on_a_connection_the_server_ended_raises_djangos_operational_error_which_answers_503():
    if connection.vendor != "postgresql":
        pytest.skip("COPY is PostgreSQL's")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    end_backend(pid)

    try:
        with pytest.raises(OperationalError):
            bulk.insert(Session, ("id", "agent"), [("bulk-1", "bulk")])
    finally:
        connection.close()

    assert not Session.objects.filter(pk="bulk-1").exists()

"""A database that cannot be reached: 503 with Retry-After, JSON for the API, a
short page for people, within the configured timeout, and back by itself.

Here through Django's test client, with the connection pointed at a database
that is not there: an SQLite file in a folder that does not exist, or on
PostgreSQL a proxy that refuses connections (tests/support/tcp_proxy.py). The
production server's side, restarts included, is in test_production_faults.py.
"""

import time

import psycopg
import pytest
from django.db import OperationalError, connection
from django.middleware.common import CommonMiddleware
from django.test import Client

from tests.support.actors import ApiClient
from tests.support.html import parse
from tests.support.readers import assert_error
from tests.support.tcp_proxy import TcpProxy
from tests.support.waiting import until

# The pool's and the connection's timeouts, in seconds, while the database is away.
TIMEOUT = 1


@pytest.fixture
def database(transactional_db, tmp_path):
    """Cut and restore the default database's connection: ``database.cut()``, ``database.restore()``."""
    settings = connection.settings_dict
    saved = {key: settings[key] for key in ("NAME", "HOST", "PORT", "OPTIONS")}
    proxy = None
    if connection.vendor == "postgresql":
        proxy = TcpProxy(settings["HOST"] or "127.0.0.1", int(settings["PORT"] or 5432))
        pool = {**settings["OPTIONS"].get("pool", {}), "timeout": TIMEOUT}
        settings.update(HOST="127.0.0.1", PORT=str(proxy.port))
        settings["OPTIONS"] = {**settings["OPTIONS"], "connect_timeout": TIMEOUT, "pool": pool}

    class Database:
        def cut(self):
            if proxy is not None:
                proxy.refuse()
            else:
                settings["NAME"] = str(tmp_path / "no such folder" / "db.sqlite3")
            connection.close()

        def restore(self):
            if proxy is not None:
                proxy.forward()
            else:
                settings["NAME"] = saved["NAME"]
            connection.close()

    reconnect(connection)
    yield Database()
    settings.update(saved)
    reconnect(connection)
    if proxy is not None:
        proxy.close()


def reconnect(connection):
    connection.close()
    if connection.vendor == "postgresql":
        connection.close_pool()


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def test_the_api_answers_503_service_unavailable_json_with_retry_after(database, write_key):
    api = ApiClient(write_key)
    database.cut()

    for call in (lambda: api.get("sessions"), lambda: api.post("sessions", {"agent": "support"})):
        response, seconds = timed(call)
        assert_error(
            response,
            503,
            "service_unavailable",
            "The database cannot be reached right now; try again in a few seconds.",
        )
        assert response["Retry-After"] == "5"
        assert seconds < TIMEOUT + 2


def test_reading_items_answers_503_when_the_database_goes_away_after_the_key_was_checked(db, write_key):
    """A streamed answer that has started can only end early: the items are read before it starts."""
    api = ApiClient(write_key)
    assert api.post("sessions/support-42/items", {"items": [{"role": "user", "content": "Hi"}]}).status_code == 200

    def gone_for_the_history(execute, sql, params, many, context):
        if '"history_' in sql:
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(gone_for_the_history):
        response = api.get("sessions/support-42/items")

    assert_error(response, 503, "service_unavailable")


def test_the_drivers_own_error_answers_503_too(db, write_key):
    """Django leaves some driver calls unwrapped: closing a server-side cursor on a connection PostgreSQL
    dropped raises psycopg's OperationalError itself (seen in the stress run's database restart)."""
    api = ApiClient(write_key)
    assert api.post("sessions/support-42/items", {"items": [{"role": "user", "content": "Hi"}]}).status_code == 200

    def dropped(execute, sql, params, many, context):
        if '"history_' in sql:
            raise psycopg.OperationalError("consuming input failed: server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(dropped):
        response = api.get("sessions/support-42/entries")

    assert_error(response, 503, "service_unavailable")
    assert response["Retry-After"] == "5"


def test_a_page_answers_a_short_503_page_that_needs_no_database(database, approver):
    client = Client()
    client.force_login(approver)
    database.cut()

    response = client.get("/p/default/approvals/")

    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response["Content-Type"].startswith("text/html")
    page = parse(response)
    assert page.text("h1") == "HistoryHub is unavailable" and "reload this page in a few seconds" in page.text()
    assert "Content-Security-Policy" in response


def test_service_comes_back_by_itself_when_the_database_does(database, write_key, approver):
    api = ApiClient(write_key)
    client = Client()
    client.force_login(approver)
    database.cut()
    assert api.get("sessions").status_code == 503

    database.restore()

    until(lambda: api.get("sessions").status_code == 200, seconds=15, message="the API's recovery")
    assert client.get("/p/default/approvals/").status_code == 200


@pytest.mark.parametrize("debug", [False, True])
def test_a_database_error_raised_outside_any_view_answers_503_too(db, write_key, settings, debug):
    """Django turns an exception in a middleware into a 500 before FaultMiddleware sees it."""
    settings.DEBUG = debug

    def process_request(self, request):
        raise OperationalError("server closed the connection unexpectedly")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CommonMiddleware, "process_request", process_request)
        api = ApiClient(write_key)
        api.client.raise_request_exception = False
        assert_error(api.get("sessions"), 503, "service_unavailable")
        page = Client(raise_request_exception=False).get("/")

    assert page.status_code == 503 and parse(page).text("h1") == "HistoryHub is unavailable"

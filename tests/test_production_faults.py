"""Faults against the production server (bin/start, as the Docker image runs it), over real HTTP.

PostgreSQL restarts and goes away behind a proxy the test controls
(tests/support/tcp_proxy.py); the machine's PostgreSQL itself is never stopped.
"""

import contextlib
import socket
import time
from dataclasses import dataclass

import pytest
from django.db import connection

from historyhub.apikeys.models import ApiKey
from tests.support.readers import envelope
from tests.support.servers import HTTPS, ProductionServer, fetch, production_environment
from tests.support.tcp_proxy import TcpProxy

POOL_TIMEOUT = 2


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes
    seconds: float

    def error(self):
        return envelope(self.headers["Content-Type"], self.body)


def call(url, headers):
    started = time.monotonic()
    response = fetch(url, {**HTTPS, **headers}, timeout=60)
    return Answer(response.status, response.headers, response.read(), time.monotonic() - started)


@contextlib.contextmanager
def production_server(tmp_path, database_url, WEB_CONCURRENCY="1", **extra):
    environment = production_environment(tmp_path, DATABASE_URL=database_url, **extra)
    with ProductionServer(environment, tmp_path / "server.log", workers=int(WEB_CONCURRENCY)) as server:
        yield server.url


def database_url(port=None):
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    port = port or database["PORT"] or 5432
    return f"postgres://{database['USER']}@127.0.0.1:{port}/{database['NAME']}"


def restart_other_backends(proxy):
    """What a PostgreSQL restart does to the server's idle pooled connections: end
    them, and return once they are gone and ``proxy`` has passed each end on to
    the server, as the network would at once. Returns how many there were."""
    connections = proxy.open_connections()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array_agg(pid) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        pids = cursor.fetchone()[0] or []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [pids])
            if cursor.fetchone()[0] == 0:
                break
    proxy.passed_on(connections)
    return len(pids)


def assert_unavailable(api, page):
    """503 with Retry-After, JSON or a page, and no waiting longer than the pool's timeout."""
    answer = api()
    assert answer.status == 503 and answer.error()["code"] == "service_unavailable", answer.body[:300]
    assert answer.headers["Retry-After"] == "5" and answer.seconds < POOL_TIMEOUT + 3
    answer = page()
    assert answer.status == 503 and answer.headers["Content-Type"].startswith("text/html"), answer.body[:300]
    assert b"HistoryHub is unavailable" in answer.body and answer.headers["Retry-After"] == "5"
    assert answer.seconds < POOL_TIMEOUT + 3


@pytest.mark.django_db(transaction=True)
def test_postgresql_restarting_or_away_never_gets_a_500_and_service_comes_back_by_itself(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's connection pool and restarts")
    _, key = ApiKey.issue("faults", "write")
    proxy = TcpProxy("127.0.0.1", int(connection.settings_dict["PORT"] or 5432))
    environment = {
        "WEB_CONCURRENCY": "2",
        "DATABASE_POOL_TIMEOUT": str(POOL_TIMEOUT),
        "DATABASE_CONNECT_TIMEOUT": str(POOL_TIMEOUT),
    }
    try:
        with production_server(tmp_path, database_url(proxy.port), **environment) as base:

            def api():
                return call(f"{base}/api/v1/sessions", {"Authorization": f"Bearer {key}"})

            def page():
                # An unknown session cookie: the page looks it up in the database, then sends to the login.
                return call(f"{base}/approvals/", {"Cookie": "sessionid=no-such-session"})

            assert [api().status for _ in range(10)] == [200] * 10
            assert [page().status for _ in range(10)] == [302] * 10

            # A restart: every idle pooled connection is dead; each is checked and replaced before use.
            assert restart_other_backends(proxy) > 0
            assert [api().status for _ in range(20)] == [200] * 20
            assert [page().status for _ in range(20)] == [302] * 20

            # Down: connections are refused.
            proxy.refuse()
            assert_unavailable(api, page)

            # Unreachable: connections hang, and the connect timeout ends each attempt.
            proxy.blackhole()
            assert_unavailable(api, page)

            # Each of the two workers finds its way back on its own, each at its own time (a worker's pool may still
            # be on its timeout after the other serves again), and requests cannot be sent to a chosen worker. So:
            # until twenty answers in a row are good, every other answer is a 503, never a 500.
            proxy.forward()
            deadline = time.monotonic() + 30
            good_in_a_row = 0
            while good_in_a_row < 20:
                assert time.monotonic() < deadline, "the service did not come back within 30 s"
                answer, good = (api(), 200) if good_in_a_row % 2 == 0 else (page(), 302)
                if answer.status == good:
                    good_in_a_row += 1
                    continue
                good_in_a_row = 0
                assert answer.status == 503 and answer.headers["Retry-After"] == "5", answer.body[:300]
    finally:
        proxy.close()


def redis_is_running():
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", 6379), timeout=1):
        return True
    return False


@pytest.mark.django_db(transaction=True)
def test_with_a_redis_cache_every_worker_counts_against_one_rate_limit(tmp_path):
    if not redis_is_running():
        pytest.skip("Redis is not running on 127.0.0.1:6379")
    _, key = ApiKey.issue("limited", "read")
    environment = {"WEB_CONCURRENCY": "2", "CACHE_URL": "redis://127.0.0.1:6379/0", "API_RATE_LIMITS": "10/min"}
    with production_server(tmp_path, database_url(), **environment) as base:
        answers = [call(f"{base}/api/v1/sessions", {"Authorization": f"Bearer {key}"}) for _ in range(14)]

    assert [answer.status for answer in answers] == [200] * 10 + [429] * 4
    for answer in answers[10:]:
        assert answer.error()["code"] == "rate_limited"
        assert 1 <= int(answer.headers["Retry-After"]) <= 60

"""Request bodies on the production server (bin/start): received whole before a request takes a thread,
within REQUEST_BODY_TIMEOUT and HISTORYHUB_MAX_BODY_BYTES (historyhub/serving/bodies.py)."""

import json
import time

import pytest

from historyhub.apikeys.models import ApiKey
from tests.support.servers import HTTPS, ProductionServer, database_url, fetch, production_environment
from tests.support.sockets import RawConnection

pytestmark = pytest.mark.django_db(transaction=True)

BODY_TIMEOUT = 6
BODY_LIMIT = 1024 * 1024
# Long enough to see the attack hold, well short of BODY_TIMEOUT.
ATTACK_SECONDS = 3
# The attackers' pace: a byte each per round, as a slow client keeps a connection busy.
ROUND_SECONDS = 0.25
# A probe answered within this is not waiting behind the attack, which lasts BODY_TIMEOUT.
PROBE_SECONDS = 2


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bodies")
    environment = production_environment(
        folder,
        DATABASE_URL=database_url(),
        REQUEST_BODY_TIMEOUT=str(BODY_TIMEOUT),
        HISTORYHUB_MAX_BODY_BYTES=str(BODY_LIMIT),
    )
    with ProductionServer(environment, folder / "server.log") as server:
        yield server


def authorized(key):
    return {**HTTPS, "Authorization": f"Bearer {key}", "Content-Type": "application/json"}


def slow_body(server, path, headers):
    """A POST that promises 100,000 bytes and has sent one."""
    attacker = RawConnection(server.url)
    attacker.send_head("POST", path, {**HTTPS, **headers, "Content-Length": "100000"})
    attacker.send(b"x")
    return attacker


def test_thirty_slow_bodies_hold_up_neither_health_checks_nor_api_reads_and_each_gets_408(server):
    _, write_key = ApiKey.issue("attacker", "write")
    _, read_key = ApiKey.issue("reader", "read")
    attackers = [slow_body(server, "/accounts/login/", {}) for _ in range(15)]
    attackers += [slow_body(server, "/api/v1/sessions", authorized(write_key)) for _ in range(15)]
    try:
        rounds = 0
        ends = time.monotonic() + ATTACK_SECONDS
        while time.monotonic() < ends:
            for attacker in attackers:
                attacker.send(b"x")
            assert fetch(f"{server.url}/healthz", {}, timeout=PROBE_SECONDS).status == 200
            assert fetch(f"{server.url}/api/v1/sessions", authorized(read_key), timeout=PROBE_SECONDS).status == 200
            rounds += 1
            time.sleep(ROUND_SECONDS)

        # The attack held all along: no attacker was answered or dropped before its time.
        assert rounds > 1 and all(attacker.waiting() for attacker in attackers)
        for attacker in attackers:
            answer = attacker.answer(timeout=BODY_TIMEOUT + 10)
            assert (answer.status, answer.error()["code"]) == (408, "request_timeout")
            assert attacker.closed_by_server(5)
    finally:
        for attacker in attackers:
            attacker.close()


def test_a_body_that_stalls_is_answered_408_in_json_the_connection_dropped_and_nothing_stored(server):
    _, key = ApiKey.issue("stalling", "write")
    body = json.dumps({"sessionId": "stalled", "agent": "supportAgent"}).encode()
    with RawConnection(server.url) as connection:
        connection.send_head("POST", "/api/v1/sessions", {**authorized(key), "Content-Length": str(len(body))})
        connection.send(body[:-1])

        answer = connection.answer(timeout=BODY_TIMEOUT + 10)

        assert answer.status == 408
        assert answer.error() == {
            "code": "request_timeout",
            "message": f"The request body did not arrive within {BODY_TIMEOUT} seconds.",
        }
        assert answer.headers["Connection"] == "close" and connection.closed_by_server(5)
    assert fetch(f"{server.url}/api/v1/sessions/stalled", authorized(key)).status == 404


def test_a_chunked_body_is_read_like_any_other(server):
    _, key = ApiKey.issue("chunked", "write")
    body = json.dumps({"sessionId": "chunked", "agent": "supportAgent"}).encode()
    with RawConnection(server.url) as connection:
        connection.send_head("POST", "/api/v1/sessions", {**authorized(key), "Transfer-Encoding": "chunked"})
        for chunk in (body[:10], body[10:]):
            connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        connection.send(b"0\r\n\r\n")

        answer = connection.answer()

    assert answer.status == 201, answer.body
    assert answer.json()["sessionId"] == "chunked"
    stored = fetch(f"{server.url}/api/v1/sessions/chunked", authorized(key))
    assert stored.status == 200 and json.load(stored)["agent"] == "supportAgent"


def test_a_body_over_the_limit_is_refused_413_as_it_arrives(server):
    too_large = {"code": "payload_too_large", "message": f"The request body is larger than {BODY_LIMIT} bytes."}
    # Its Content-Length says so: answered before a byte of it is sent.
    with RawConnection(server.url) as connection:
        connection.send_head("POST", "/api/v1/sessions", {**HTTPS, "Content-Length": str(BODY_LIMIT + 1)})
        answer = connection.answer()
        assert (answer.status, answer.error()) == (413, too_large)
    # A chunked body that never ends: answered once the limit is passed.
    with RawConnection(server.url) as connection:
        connection.send_head("POST", "/api/v1/sessions", {**HTTPS, "Transfer-Encoding": "chunked"})
        connection.send(b"%x\r\n%s\r\n" % (BODY_LIMIT + 1, b"x" * (BODY_LIMIT + 1)))
        answer = connection.answer()
        assert (answer.status, answer.error()) == (413, too_large)
        assert connection.closed_by_server(5)

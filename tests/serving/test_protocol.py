"""Request heads on the production server (bin/start): limited in size and in time, and refused in JSON
(historyhub/serving/protocol.py)."""

import http.client
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.test import Client

from historyhub.apikeys.models import ApiKey
from historyhub.projects.models import Role
from tests.support.actors import make_member
from tests.support.servers import HTTPS, ProductionServer, database_url, fetch, production_environment
from tests.support.sockets import RawConnection

pytestmark = pytest.mark.django_db(transaction=True)

HEADER_TIMEOUT = 2
# gunicorn's --keep-alive, which uvicorn applies once an answer is sent.
KEEP_ALIVE = 2
# How much later than its timeout the server may close a connection on a busy machine.
SLACK = 5
FLOOD_BYTES = 200 * 1024 * 1024
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory):
    folder = tmp_path_factory.mktemp("heads")
    # The tests' SECRET_KEY, so the server takes the login a test makes here.
    environment = production_environment(
        folder, DATABASE_URL=database_url(), SECRET_KEY=settings.SECRET_KEY, REQUEST_HEADER_TIMEOUT=str(HEADER_TIMEOUT)
    )
    with ProductionServer(environment, folder / "server.log") as server:
        yield server


def test_headers_over_64_kib_in_all_are_answered_431_in_json_and_the_connection_closed(server):
    too_large = {"code": "headers_too_large", "message": "The request's headers are larger than 65536 bytes in all."}
    for path, headers in [
        ("/api/v1/sessions", {"X-Padding": "a" * 70_000}),
        ("/healthz", {f"X-Padding-{number}": "a" * 1000 for number in range(70)}),
    ]:
        with RawConnection(server.url) as connection:
            connection.send_head("GET", path, {**HTTPS, **headers})

            answer = connection.answer()

            assert (answer.status, answer.error()) == (431, too_large)
            assert connection.closed_by_server(5)


def test_pipelined_requests_that_add_up_past_the_limit_are_each_answered(server):
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    count = 2 * 65536 // len(request)
    with RawConnection(server.url) as connection:
        connection.send(request * (count - 1) + request.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))

        received = connection.everything(timeout=30)

    assert received.count(b"HTTP/1.1 200 OK\r\n") == count


def test_endless_headers_are_cut_off_early_while_health_checks_answer(server):
    stop = threading.Event()

    def flood():
        """A header that never ends: how much of it was sent before the server closed the connection."""
        sent = 0
        with RawConnection(server.url) as connection:
            connection.send(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Flood: ")
            try:
                while sent < FLOOD_BYTES and not stop.is_set():
                    connection.send(b"a" * MIB)
                    sent += MIB
            except OSError:
                pass
        return sent

    with ThreadPoolExecutor(max_workers=4) as pool:
        floods = [pool.submit(flood) for _ in range(4)]
        try:
            assert fetch(f"{server.url}/healthz", {}, timeout=2).status == 200
            while not all(running.done() for running in floods):
                assert fetch(f"{server.url}/healthz", {}, timeout=2).status == 200
            sent = [running.result() for running in floods]
        finally:
            stop.set()

    # Cut off once past the limit (what the sockets' buffers held is all that got further), not read to the end.
    assert all(amount < FLOOD_BYTES / 10 for amount in sent), sent


def test_a_url_over_the_limit_under_the_api_is_answered_414_in_json(server):
    with RawConnection(server.url) as connection:
        connection.send_head("GET", "/api/v1/sessions/" + "a" * 70_000, HTTPS)

        answer = connection.answer()

    assert answer.status == 414
    assert answer.error() == {
        "code": "uri_too_long",
        "message": "The request line is longer than the 65536 bytes a request head may hold.",
    }


def test_a_header_the_parser_refuses_under_the_api_is_answered_400_in_json(server):
    with RawConnection(server.url) as connection:
        connection.send_head(
            "POST", "/api/v1/sessions", {**HTTPS, "Idempotency-Key": b"key-\x7f", "Content-Length": "2"}
        )
        connection.send(b"{}")

        answer = connection.answer()

    assert answer.status == 400
    assert answer.error()["code"] == "invalid_input"


def test_connections_that_send_no_whole_head_in_time_and_idle_keep_alives_are_closed(server):
    idle = [RawConnection(server.url) for _ in range(50)]
    slow = [RawConnection(server.url) for _ in range(50)]
    for connection in slow:
        connection.send(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    kept_alive = RawConnection(server.url)
    kept_alive.send_head("GET", "/healthz", {"Host": "127.0.0.1"})
    assert kept_alive.answer().status == 200
    try:
        assert all(connection.closed_by_server(HEADER_TIMEOUT + SLACK) for connection in idle + slow)
        assert kept_alive.closed_by_server(KEEP_ALIVE + SLACK)
    finally:
        for connection in [*idle, *slow, kept_alive]:
            connection.close()


def read_event(stream):
    """The name of the next event on a server-sent event stream."""
    while not (line := stream.fp.readline().decode()).startswith("event: "):
        assert line, "the stream ended"
    return line.removeprefix("event: ").strip()


def test_waits_and_live_streams_last_past_the_header_timeout(server):
    _, key = ApiKey.issue("waiting", "write")
    api = {**HTTPS, "Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    session = json.dumps({"sessionId": "long-requests", "agent": "supportAgent"}).encode()
    action = json.dumps({"callId": "call-1", "name": "refund", "arguments": {}}).encode()
    assert fetch(f"{server.url}/api/v1/sessions", api, session).status == 201
    assert fetch(f"{server.url}/api/v1/sessions/long-requests/client-actions", api, action).status == 201
    browser = Client()
    browser.force_login(make_member("viewer", Role.VIEWER))
    cookie = browser.cookies["sessionid"].value
    link = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        link.request(
            "GET", "/p/default/live/", headers={**HTTPS, "Cookie": f"sessionid={cookie}", "Accept": "text/event-stream"}
        )
        stream = link.getresponse()
        assert (stream.status, read_event(stream)) == (200, "changed")

        seconds = HEADER_TIMEOUT + 1.5
        started = time.monotonic()
        wait = fetch(
            f"{server.url}/api/v1/sessions/long-requests/client-actions/call-1?wait={seconds}", api, timeout=30
        )
        assert (wait.status, json.load(wait)["status"]) == (200, "waiting")
        assert time.monotonic() - started >= seconds

        # The stream, open all this time, still hears the next change.
        other = json.dumps({"sessionId": "later", "agent": "supportAgent"}).encode()
        assert fetch(f"{server.url}/api/v1/sessions", api, other).status == 201
        assert read_event(stream) == "changed"
    finally:
        link.close()

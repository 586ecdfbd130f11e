"""``GET …/client-actions/{callId}?wait=S`` on the production server: two servers (bin/start, one
worker each) on the test database, the wait held by one and the change made through the other."""

import http.client
import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.db import connection

from historyhub.apikeys.models import ApiKey
from tests.support.servers import ProductionServer, database_url, production_environment
from tests.support.waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

# Long enough that an answer before it can only be a wake-up.
LONG_WAIT = 30


class Api:
    """Real HTTP to one server, as the TLS proxy in front of it forwards a request."""

    def __init__(self, server, key):
        self.server = server
        self.address = urlsplit(server.url)
        self.headers = {
            "Host": "historyhub.example.com",
            "X-Forwarded-Proto": "https",
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
        }

    def connect(self):
        return http.client.HTTPConnection(self.address.hostname, self.address.port, timeout=LONG_WAIT + 30)

    def send(self, method, path, body=None):
        """(status, headers, JSON body or None)."""
        link = self.connect()
        try:
            link.request(method, f"/api/v1/{path}", json.dumps(body) if body is not None else None, self.headers)
            answer = link.getresponse()
            content = answer.read()
            return answer.status, answer.headers, json.loads(content) if content else None
        finally:
            link.close()


@pytest.fixture(scope="module")
def servers(django_db_setup, tmp_path_factory):
    directory = tmp_path_factory.mktemp("servers")
    environment = production_environment(directory, DATABASE_URL=database_url())
    with (
        ProductionServer(environment, directory / "holder.log") as holder,
        ProductionServer(environment, directory / "decider.log") as decider,
    ):
        yield holder, decider


@pytest.fixture
def agent_key(db):
    return ApiKey.issue("waits", "write")[1]


@pytest.fixture
def apis(servers, agent_key):
    """The agent's wait on one server, and a client application deciding on the other."""
    holder, decider = servers
    return [Api(holder, agent_key), Api(decider, ApiKey.issue("client application", "write,decide")[1])]


@pytest.fixture
def action(servers, agent_key):
    """A waiting action in a new session, opened by the agent through the deciding server."""
    agent = Api(servers[1], agent_key)
    assert agent.send("POST", "sessions", {"sessionId": "waiting-1", "agent": "supportAgent"})[0] == 201
    opened = {"callId": "call-1", "name": "refund", "arguments": {"amount": 750}}
    assert agent.send("POST", "sessions/waiting-1/client-actions", opened)[0] == 201
    return "sessions/waiting-1/client-actions/call-1"


def start_waiting(holder, path, seconds=LONG_WAIT):
    """The wait, running; returns once it is parked in the holding worker (its first read done, so what happens
    next happens while it waits), with a future of (answer, seconds taken)."""
    before = holder.server.parked()

    def wait():
        started = time.monotonic()
        answer = holder.send("GET", f"{path}?wait={seconds}")
        return answer, time.monotonic() - started

    waiter = ThreadPoolExecutor(max_workers=1).submit(wait)
    until(lambda: holder.server.parked() == before + 1 or waiter.done(), message="the wait")
    assert not waiter.done(), waiter.result()
    return waiter


def test_a_decision_made_through_one_server_wakes_a_wait_held_by_another(apis, action):
    holder, decider = apis
    waiter = start_waiting(holder, action)

    decided = decider.send("POST", f"{action}/decision", {"decision": "approve", "comment": "fine"})

    (status, _, body), seconds = waiter.result()
    assert decided[0] == 200
    assert status == 200
    assert (body["status"], body["comment"], body["approvedArguments"]) == ("approved", "fine", {"amount": 750})
    assert seconds < LONG_WAIT / 2


def test_a_result_supplied_through_one_server_wakes_a_wait_held_by_another(apis, action):
    holder, decider = apis
    waiter = start_waiting(holder, action)

    assert decider.send("POST", f"{action}/result", {"output": {"refunded": True}})[0] == 200

    (status, _, body), seconds = waiter.result()
    assert (status, body["status"], body["output"]) == (200, "completed", {"refunded": True})
    assert seconds < LONG_WAIT / 2


def test_a_wait_returns_the_action_expired_once_its_expires_at_passes_though_nobody_writes(apis):
    holder, decider = apis
    decider.send("POST", "sessions", {"sessionId": "expiring", "agent": "supportAgent"})
    expires_at = datetime.now(UTC) + timedelta(seconds=2)
    opened = {"callId": "c1", "name": "refund", "arguments": {}, "expiresAt": expires_at.isoformat()}
    assert decider.send("POST", "sessions/expiring/client-actions", opened)[0] == 201

    (status, _, body), seconds = start_waiting(holder, "sessions/expiring/client-actions/c1").result()

    assert (status, body["status"]) == (200, "expired")
    assert datetime.now(UTC) >= expires_at
    assert seconds < LONG_WAIT / 2


def test_deleting_the_session_ends_a_wait_held_by_another_server_with_404(apis, action):
    holder, decider = apis
    waiter = start_waiting(holder, action)

    assert decider.send("DELETE", "sessions/waiting-1")[0] == 204

    (status, _, body), seconds = waiter.result()
    assert (status, body["error"]["code"]) == (404, "session_not_found")
    assert body["error"]["message"].startswith("Session 'waiting-1' was deleted while this request waited")
    assert seconds < LONG_WAIT / 2


def test_an_erasure_ends_a_wait_on_its_session_at_once_with_404_saying_it_was_deleted(apis, agent_key, servers):
    holder, decider = apis
    agent = Api(servers[1], agent_key)
    created = {"sessionId": "to-erase", "agent": "supportAgent", "metadata": {"customerId": "cus_9"}}
    assert agent.send("POST", "sessions", created)[0] == 201
    opened = {"callId": "call/9", "name": "refund", "arguments": {"amount": 5}}
    assert agent.send("POST", "sessions/to-erase/client-actions", opened)[0] == 201
    waiter = start_waiting(holder, "sessions/to-erase/client-actions/call%2F9")

    erased = decider.send("POST", "erasures", {"metadataKey": "customerId", "metadataValue": "cus_9"})
    assert erased[0] == 200 and erased[2] == {"sessionsDeleted": 1}

    (status, _, body), seconds = waiter.result()
    assert status == 404
    assert body["error"] == {
        "code": "session_not_found",
        "message": "Session 'to-erase' was deleted while this request waited for client action 'call/9' "
        "(the session was deleted or erased); the action was deleted with it.",
    }
    assert seconds < LONG_WAIT / 2
    # Asked again, the session is simply not found: the wait's message is for the wait that saw it go.
    again = holder.send("GET", "sessions/to-erase/client-actions/call%2F9?wait=1")
    assert (again[0], again[2]["error"]["message"]) == (404, "Session 'to-erase' was not found.")


def test_a_wait_that_nobody_answers_returns_the_action_waiting_within_a_second_of_its_time(apis, action):
    holder, _ = apis

    (status, _, body), seconds = start_waiting(holder, action, seconds=1.5).result()

    assert (status, body["status"]) == (200, "waiting")
    assert 1.5 <= seconds < 2.5


def test_a_client_that_disconnects_frees_its_waiter_at_once(apis, action):
    holder, _ = apis
    link = holder.connect()
    link.request("GET", f"/api/v1/{action}?wait={LONG_WAIT}", headers=holder.headers)
    until(lambda: holder.server.subscribers() == 1, message="the wait")

    link.close()

    until(lambda: holder.server.subscribers() == 0, seconds=5, message="the waiter's release")


def test_a_worker_restart_answers_a_wait_with_503_and_retry_after(apis, action):
    holder, _ = apis
    waiter = start_waiting(holder, action)

    holder.server.restart_workers()

    (status, headers, body), seconds = waiter.result()
    assert status == 503
    assert body == {"error": {"code": "service_unavailable", "message": "The server is restarting; ask again."}}
    assert headers["Retry-After"] == "1"
    assert seconds < LONG_WAIT / 2
    # The new worker serves the retry.
    until(lambda: holder.send("GET", action)[0] == 200, message="the new worker")


def listener_backends():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'historyhub live' AND datname = %s",
            [connection.settings_dict["NAME"]],
        )
        return {pid for (pid,) in cursor.fetchall()}


def test_a_worker_listens_again_after_postgresql_drops_its_listening_connection(apis, action):
    if connection.vendor != "postgresql":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's; SQLite's change file has no connection to drop")
    holder, decider = apis
    waiter = start_waiting(holder, action)
    dropped = listener_backends()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [list(dropped)])
    until(lambda: listener_backends() - dropped, message="a new listening connection")

    assert decider.send("POST", f"{action}/decision", {"decision": "reject"})[0] == 200

    (status, _, body), seconds = waiter.result()
    assert (status, body["status"]) == (200, "rejected")
    assert seconds < LONG_WAIT / 2

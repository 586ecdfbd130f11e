"""Every endpoint against every kind of key: none, revoked, and each scope (read, write, decide, admin)."""

import pytest
from django.test import Client

from historyhub.apikeys.models import ApiKey
from tests.support.actors import ApiClient
from tests.support.readers import assert_error

ITEM = {"type": "message", "role": "user", "content": "hi"}

# (method, path, body, status with a key that may make the call); run against session s1 holding
# one item and the waiting client actions c1 and c2, opened by the write key.
READS = [
    ("GET", "sessions", None, 200),
    ("GET", "sessions/s1", None, 200),
    ("GET", "sessions/s1/history", None, 200),
    ("GET", "sessions/s1/items", None, 200),
    ("GET", "sessions/s1/responses/m1", None, 200),
    ("GET", "sessions/s1/entries", None, 200),
    ("GET", "sessions/s1/messages", None, 200),
    ("GET", "client-actions", None, 200),
    ("GET", "sessions/s1/client-actions/c1", None, 200),
]
WRITES = [
    ("POST", "sessions", {"agent": "a"}, 201),
    ("PATCH", "sessions/s1", {"name": "Renamed"}, 200),
    ("DELETE", "sessions/s1", None, 204),
    ("POST", "sessions/s1/items", {"items": [ITEM]}, 200),
    ("PUT", "sessions/s1/items", {"items": [ITEM]}, 200),
    ("DELETE", "sessions/s1/items", None, 204),
    ("POST", "sessions/s1/items/pop", None, 200),
    ("POST", "sessions/s1/compaction", {"items": [{"type": "compaction"}]}, 200),
    (
        "POST",
        "sessions/s1/transactions",
        {"operationId": "op", "transaction": {"type": "append_items", "items": []}},
        200,
    ),
    ("POST", "sessions/s1/injections", {"content": "Note"}, 201),
    ("PUT", "sessions/s1/messages", {"messages": [{"role": "user", "content": "hi"}]}, 200),
    ("POST", "sessions/s1/client-actions", {"callId": "c3", "name": "n", "arguments": {}}, 201),
    ("POST", "sessions/s1/client-actions/c1/result", {"output": "ok"}, 200),
]
DECISIONS = [
    ("POST", "sessions/s1/client-actions/c2/decision", {"decision": "approve"}, 200),
]
ENDPOINTS = READS + WRITES + DECISIONS


def label(endpoint):
    return f"{endpoint[0]} {endpoint[1]}"


@pytest.fixture
def s1(api):
    api.post("sessions", {"sessionId": "s1", "agent": "support"})
    api.post("sessions/s1/items", {"items": [{**ITEM, "id": "m1"}]})
    for call_id in ("c1", "c2"):
        api.post("sessions/s1/client-actions", {"callId": call_id, "name": "n", "arguments": {}})
    return api.get("sessions/s1").json()


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=label)
def test_a_request_without_a_key_is_unauthorized(anonymous, api, s1, endpoint):
    method, path, body, _ = endpoint

    response = anonymous.request(method, path, body)

    assert_error(response, 401, "unauthorized")
    assert response["WWW-Authenticate"] == "Bearer"
    assert api.get("sessions/s1").json() == s1


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=label)
def test_a_revoked_key_is_unauthorized(revoked_api, api, s1, endpoint):
    method, path, body, _ = endpoint

    assert_error(revoked_api.request(method, path, body), 401, "unauthorized")
    assert api.get("sessions/s1").json() == s1


@pytest.mark.parametrize("endpoint", READS, ids=label)
def test_a_read_key_may_read(read_api, s1, endpoint):
    method, path, body, status = endpoint

    assert read_api.request(method, path, body).status_code == status


@pytest.mark.parametrize("endpoint", WRITES + DECISIONS, ids=label)
def test_a_read_key_may_neither_write_nor_decide(read_api, api, s1, endpoint):
    method, path, body, _ = endpoint

    assert_error(read_api.request(method, path, body), 403, "forbidden")
    assert api.get("sessions/s1").json() == s1


@pytest.mark.parametrize("endpoint", READS + WRITES, ids=label)
def test_a_write_key_may_do_what_agents_do(api, s1, endpoint):
    method, path, body, status = endpoint

    assert api.request(method, path, body).status_code == status


@pytest.mark.parametrize("endpoint", DECISIONS, ids=label)
def test_a_write_key_may_not_decide(s1, endpoint):
    method, path, body, _ = endpoint
    other_agent = ApiClient(ApiKey.issue("another agent", "write")[1])

    message = assert_error(other_agent.request(method, path, body), 403, "forbidden")

    assert "decide scope" in message
    assert other_agent.get("sessions/s1/client-actions/c2").json()["status"] == "waiting"


@pytest.mark.parametrize("endpoint", READS + DECISIONS, ids=label)
def test_a_decide_key_may_read_and_decide(decide_api, s1, endpoint):
    method, path, body, status = endpoint

    assert decide_api.request(method, path, body).status_code == status


@pytest.mark.parametrize("endpoint", WRITES, ids=label)
def test_a_decide_key_may_not_write(decide_api, api, s1, endpoint):
    method, path, body, _ = endpoint

    assert_error(decide_api.request(method, path, body), 403, "forbidden")
    assert api.get("sessions/s1").json() == s1


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=label)
def test_an_admin_key_may_do_everything(s1, endpoint):
    method, path, body, status = endpoint
    admin = ApiClient(ApiKey.issue("operator", "admin")[1])

    assert admin.request(method, path, body).status_code == status


def test_the_key_that_opened_an_action_may_not_decide_it_whatever_its_scopes(db):
    agent = ApiClient(ApiKey.issue("agent with every scope", "write,decide,admin")[1])
    agent.post("sessions", {"sessionId": "s1", "agent": "support"})
    agent.post("sessions/s1/client-actions", {"callId": "refund", "name": "issue_refund", "arguments": {"amount": 5}})

    response = agent.post(
        "sessions/s1/client-actions/refund/decision", {"decision": "approve", "arguments": {"amount": 999999}}
    )

    assert assert_error(response, 403, "forbidden") == "The key that opened this action cannot decide it."
    action = agent.get("sessions/s1/client-actions/refund").json()
    assert (action["status"], action["approvedArguments"]) == ("waiting", None)


def test_the_key_whose_items_opened_an_action_may_not_decide_it(db):
    """An action opened by a log item (a hosted MCP approval request) remembers the key that wrote it."""
    agent = ApiClient(ApiKey.issue("agent", "write,decide")[1])
    request = {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "name": "delete_repo",
        "arguments": "{}",
        "server_label": "github",
    }
    agent.post("sessions/s1/items", {"items": [request]})

    response = agent.post("sessions/s1/client-actions/mcpr_1/decision", {"decision": "approve"})

    assert assert_error(response, 403, "forbidden") == "The key that opened this action cannot decide it."


@pytest.mark.parametrize("header", ["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer not-a-key", "hh_abc"])
def test_a_malformed_or_unknown_authorization_is_unauthorized(db, header):
    response = Client().get("/api/v1/sessions", headers={"Authorization": header})

    assert_error(response, 401, "unauthorized")


def test_the_schema_and_docs_need_no_key(anonymous):
    assert anonymous.get("/api/openapi.json").status_code == 200
    assert anonymous.get("/api/docs").status_code == 200

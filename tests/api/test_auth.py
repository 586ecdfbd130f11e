"""Every endpoint against every kind of key: none, revoked, read and write."""

import pytest
from django.test import Client

from tests.support.readers import assert_error

ITEM = {"type": "message", "role": "user", "content": "hi"}

# (method, path, body, status with a write key); run against session s1 holding
# one item and the waiting client actions c1 and c2.
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
    ("POST", "sessions/s1/client-actions/c2/decision", {"decision": "approve"}, 200),
]
ENDPOINTS = READS + WRITES


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


@pytest.mark.parametrize("endpoint", WRITES, ids=label)
def test_a_read_key_may_not_write(read_api, api, s1, endpoint):
    method, path, body, _ = endpoint

    assert_error(read_api.request(method, path, body), 403, "forbidden")
    assert api.get("sessions/s1").json() == s1


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=label)
def test_a_write_key_may_do_everything(api, s1, endpoint):
    method, path, body, status = endpoint

    assert api.request(method, path, body).status_code == status


@pytest.mark.parametrize("header", ["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer not-a-key", "hh_abc"])
def test_a_malformed_or_unknown_authorization_is_unauthorized(db, header):
    response = Client().get("/api/v1/sessions", headers={"Authorization": header})

    assert_error(response, 401, "unauthorized")


def test_the_schema_and_docs_need_no_key(anonymous):
    assert anonymous.get("/api/openapi.json").status_code == 200
    assert anonymous.get("/api/docs").status_code == 200

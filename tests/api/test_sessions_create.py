import re

from tests.support.readers import assert_error

SNAPSHOT_FIELDS = {
    "sessionId",
    "agent",
    "name",
    "status",
    "metadata",
    "createdAt",
    "updatedAt",
    "runStatus",
    "pendingClientActions",
    "lineage",
    "usage",
    "itemCount",
}


def test_it_creates_a_session_with_the_given_id(api):
    response = api.post(
        "sessions", {"sessionId": "support-42", "agent": "support", "name": "Refund", "metadata": {"tier": "gold"}}
    )

    assert response.status_code == 201
    snapshot = response.json()
    assert set(snapshot) == SNAPSHOT_FIELDS
    assert snapshot["sessionId"] == "support-42"
    assert snapshot["agent"] == "support"
    assert snapshot["name"] == "Refund"
    assert snapshot["metadata"] == {"tier": "gold"}
    assert snapshot["status"] == "active"
    assert snapshot["runStatus"] is None
    assert snapshot["pendingClientActions"] == []
    assert snapshot["itemCount"] == 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z", snapshot["createdAt"])


def test_it_generates_an_id_when_none_is_given(api):
    response = api.post("sessions", {"agent": "support"})

    assert response.status_code == 201
    assert re.fullmatch(r"ses_01[0-9A-HJKMNP-TV-Z]{24}", response.json()["sessionId"])


def test_it_returns_the_existing_session_for_the_same_id_and_agent(api):
    api.post("sessions", {"sessionId": "s1", "agent": "support", "name": "First"})

    response = api.post("sessions", {"sessionId": "s1", "agent": "support", "name": "Second"})

    assert response.status_code == 200
    assert response.json()["name"] == "First"


def test_it_refuses_an_existing_id_with_another_agent(api):
    api.post("sessions", {"sessionId": "s1", "agent": "support"})

    response = api.post("sessions", {"sessionId": "s1", "agent": "billing"})

    assert_error(response, 409, "session_conflict")
    assert api.get("sessions/s1").json()["agent"] == "support"


def test_metadata_values_may_be_strings_numbers_booleans_or_null(api):
    metadata = {"s": "x", "i": 12345678901234567890, "f": 1.5, "b": True, "n": None}

    response = api.post("sessions", {"sessionId": "s1", "agent": "a", "metadata": metadata})

    assert response.json()["metadata"] == metadata


def test_it_rejects_metadata_holding_an_object(api):
    response = api.post("sessions", {"sessionId": "s1", "agent": "a", "metadata": {"nested": {"x": 1}}})

    assert_error(
        response,
        400,
        "invalid_input",
        "metadata must be an object whose values are strings, numbers, booleans or null.",
    )
    assert_error(api.get("sessions/s1"), 404, "session_not_found")


def test_it_rejects_an_invalid_session_id(api):
    response = api.post("sessions", {"sessionId": "-starts-with-a-dash", "agent": "a"})

    message = assert_error(response, 400, "invalid_input")
    assert message.startswith("sessionId")
    assert api.get("sessions").json()["total"] == 0


def test_it_requires_an_agent(api):
    assert_error(api.post("sessions", {"sessionId": "s1"}), 400, "invalid_input", "agent: Field required")


def test_a_child_session_records_its_lineage_and_shows_in_the_parent(api):
    api.post("sessions", {"sessionId": "parent", "agent": "planner"})

    response = api.post(
        "sessions", {"sessionId": "child", "agent": "researcher", "parentSessionId": "parent", "parentCallId": "call-1"}
    )

    assert response.status_code == 201
    assert response.json()["lineage"] == {
        "origin": "delegated",
        "parentAgent": "planner",
        "parentSessionId": "parent",
        "parentCallId": "call-1",
    }
    parent = api.get("sessions/parent/history").json()
    assert parent["runStatus"] == "waiting_for_subagent"
    [subagent] = parent["items"]
    assert subagent["id"] == "subagent:call-1"
    assert subagent["childSessionId"] == "child"
    assert subagent["name"] == "researcher"


def test_it_answers_404_for_an_unknown_parent(api):
    response = api.post(
        "sessions", {"sessionId": "child", "agent": "a", "parentSessionId": "nobody", "parentCallId": "call-1"}
    )

    assert_error(response, 404, "session_not_found")
    assert_error(api.get("sessions/child"), 404, "session_not_found")


def test_a_parent_session_needs_its_call_id(api):
    api.post("sessions", {"sessionId": "parent", "agent": "planner"})

    response = api.post("sessions", {"sessionId": "child", "agent": "a", "parentSessionId": "parent"})

    assert_error(response, 400, "invalid_input", "parentSessionId and parentCallId go together.")

import pytest
import time_machine

from tests.support.readers import assert_error


@pytest.fixture
def action(api, session_id):
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "pick_file", "arguments": {}})
    return f"sessions/{session_id}/client-actions/c1"


def test_a_result_completes_the_action(api, session_id, action):
    response = api.post(f"{action}/result", {"output": {"path": "/tmp/a.txt"}})

    assert response.status_code == 200
    result = response.json()
    assert (result["status"], result["output"], result["isError"]) == ("completed", {"path": "/tmp/a.txt"}, False)
    assert result["resolvedBy"] == "api key: tests (write)"
    assert result["resolvedAt"].endswith("Z")
    snapshot = api.get(f"sessions/{session_id}").json()
    assert snapshot["runStatus"] == "running"
    assert snapshot["pendingClientActions"] == []


def test_an_error_result_fails_the_action(api, action):
    result = api.post(f"{action}/result", {"output": "disk full", "isError": True}).json()

    assert (result["status"], result["output"], result["isError"]) == ("failed", "disk full", True)


def test_the_same_result_twice_is_accepted_unchanged(api, action):
    first = api.post(f"{action}/result", {"output": "ok"}).json()

    again = api.post(f"{action}/result", {"output": "ok"})

    assert again.status_code == 200
    assert again.json() == first


def test_a_different_second_result_is_a_conflict(api, action):
    api.post(f"{action}/result", {"output": "ok"})

    assert_error(api.post(f"{action}/result", {"output": "other"}), 409, "action_result_conflict")
    assert api.get(action).json()["output"] == "ok"


def test_an_expired_action_can_no_longer_be_resolved(api, session_id):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        api.post(
            f"sessions/{session_id}/client-actions",
            {"callId": "old", "name": "n", "arguments": {}, "expiresAt": "2026-12-01T12:05:00Z"},
        )

    with time_machine.travel("2026-12-01T12:06:00Z", tick=False):
        response = api.post(f"sessions/{session_id}/client-actions/old/result", {"output": "late"})

    assert_error(response, 409, "action_result_conflict")
    assert api.get(f"sessions/{session_id}/client-actions/old").json()["status"] == "expired"


@pytest.mark.parametrize(
    "body, message",
    [
        ({}, "output: Field required"),
        ({"output": 1, "isError": "yes"}, "isError: Input should be a valid boolean"),
    ],
)
def test_it_rejects_a_malformed_result(api, action, body, message):
    assert_error(api.post(f"{action}/result", body), 400, "invalid_input", message)
    assert api.get(action).json()["status"] == "waiting"


def test_it_answers_404_for_an_unknown_action(api, session_id):
    response = api.post(f"sessions/{session_id}/client-actions/nope/result", {"output": 1})

    assert_error(response, 404, "not_found")

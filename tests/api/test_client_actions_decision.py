import pytest

from tests.support.readers import assert_error


@pytest.fixture
def action(api, session_id):
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "send_mail", "arguments": {"to": "a"}})
    return f"sessions/{session_id}/client-actions/c1"


def test_approving_keeps_the_arguments(decide_api, api, action):
    response = decide_api.post(f"{action}/decision", {"decision": "approve", "comment": "fine"})

    assert response.status_code == 200
    decided = response.json()
    assert (decided["status"], decided["decision"], decided["comment"]) == ("approved", "approve", "fine")
    assert decided["approvedArguments"] == {"to": "a"}
    assert decided["resolvedBy"] == "api key: tests (decide)"


def test_approving_with_edited_arguments_keeps_both_versions(decide_api, api, action):
    decided = decide_api.post(f"{action}/decision", {"decision": "approve", "arguments": {"to": "b"}}).json()

    assert (decided["arguments"], decided["approvedArguments"]) == ({"to": "a"}, {"to": "b"})


def test_rejecting_fails_the_timeline_item(decide_api, api, session_id, action):
    decided = decide_api.post(f"{action}/decision", {"decision": "reject", "comment": "no"}).json()

    assert (decided["status"], decided["decision"]) == ("rejected", "reject")
    [item] = api.get(f"sessions/{session_id}/history").json()["items"]
    assert (item["status"], item["summary"]) == ("failed", "send mail was rejected.")


def test_the_same_decision_twice_is_accepted_unchanged(decide_api, api, action):
    first = decide_api.post(f"{action}/decision", {"decision": "approve"}).json()

    again = decide_api.post(f"{action}/decision", {"decision": "approve"})

    assert again.status_code == 200
    assert again.json() == first


def test_a_different_second_decision_is_a_conflict(decide_api, api, action):
    decide_api.post(f"{action}/decision", {"decision": "approve"})

    assert_error(decide_api.post(f"{action}/decision", {"decision": "reject"}), 409, "action_result_conflict")
    assert api.get(action).json()["status"] == "approved"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"decision": "maybe"}, "decision"),
        ({}, "decision"),
        ({"decision": "approve", "arguments": [1]}, "arguments"),
    ],
)
def test_it_rejects_a_malformed_decision(decide_api, api, action, body, field):
    assert assert_error(decide_api.post(f"{action}/decision", body), 400, "invalid_input").startswith(f"{field}: ")
    assert api.get(action).json()["status"] == "waiting"


def test_it_answers_404_for_an_unknown_session(decide_api):
    assert_error(
        decide_api.post("sessions/nobody/client-actions/c1/decision", {"decision": "approve"}), 404, "session_not_found"
    )

"""PUT /sessions/{sessionId}/runs/{runId}: park a run's state until its client actions are decided."""

import pytest

from tests.support.readers import assert_error
from tests.support.runs import STATE, decide


def test_parking_a_run_keeps_its_state_verbatim_and_what_it_waits_on(api, session_id):
    response = api.put(f"sessions/{session_id}/runs/run_1", {"agent": "support", "state": STATE, "callIds": ["call_b"]})

    assert response.status_code == 201
    run = response.json()
    assert {field: run[field] for field in ("sessionId", "runId", "agent", "state", "callIds", "ready")} == {
        "sessionId": session_id,
        "runId": "run_1",
        "agent": "support",
        "state": STATE,
        "callIds": ["call_b"],
        "ready": False,
    }
    assert (run["claimedUntil"], run["claimedBy"]) == (None, None)
    assert run["createdAt"].endswith("Z") and run["updatedAt"].endswith("Z")


def test_parking_again_replaces_the_state_and_releases_a_claim(api, session_id, run_path):
    decide(session_id, "call_a")
    decide(session_id, "call_b")
    api.post(f"sessions/{session_id}/client-actions", {"callId": "call_c", "name": "issue_refund", "arguments": {}})
    assert api.post(f"{run_path}/claim", {}).status_code == 200

    response = api.put(run_path, {"agent": "support", "state": "{}", "callIds": ["call_c"]})

    assert response.status_code == 200
    run = response.json()
    assert (run["state"], run["callIds"], run["claimedUntil"], run["ready"]) == ("{}", ["call_c"], None, False)


def test_a_run_waits_only_on_client_actions_of_its_session(api, session_id):
    response = api.put(f"sessions/{session_id}/runs/run_1", {"agent": "support", "state": STATE, "callIds": ["nope"]})

    assert_error(response, 404, "not_found", "Client action 'nope' was not found in session 'support-42'.")
    assert api.get(f"sessions/{session_id}/runs/run_1").status_code == 404


def test_a_run_of_an_unknown_session_is_not_found(api):
    response = api.put("sessions/nobody/runs/run_1", {"agent": "support", "state": STATE, "callIds": ["call_a"]})

    assert_error(response, 404, "session_not_found")


@pytest.mark.parametrize(
    "body, field",
    [
        ({"agent": "support", "state": "", "callIds": ["call_a"]}, "state"),
        ({"agent": "support", "state": STATE, "callIds": []}, "callIds"),
        ({"agent": "", "state": STATE, "callIds": ["call_a"]}, "agent"),
        ({"agent": "support", "callIds": ["call_a"]}, "state"),
        ({"agent": "support", "state": "{\u0000}", "callIds": ["call_a"]}, "state"),
    ],
)
def test_it_rejects_a_malformed_run(api, session_id, body, field):
    response = api.put(f"sessions/{session_id}/runs/run_1", body)

    assert_error(response, 400, "invalid_input")
    assert response.json()["error"]["message"].startswith(field)


def test_a_run_id_uses_the_characters_of_session_ids(api, session_id):
    response = api.put(
        f"sessions/{session_id}/runs/run%201", {"agent": "support", "state": STATE, "callIds": ["call_a"]}
    )

    assert_error(response, 400, "invalid_input")


def test_a_read_key_may_not_park_a_run(read_api, session_id):
    response = read_api.put(
        f"sessions/{session_id}/runs/run_1", {"agent": "support", "state": STATE, "callIds": ["call_a"]}
    )

    assert_error(response, 403, "forbidden")


def test_the_openapi_document_states_that_a_state_holds_no_nul(api):
    """A client generated from the document refuses what the server would refuse (docs/api.md, "Limits")."""
    run_in = api.get("/api/openapi.json").json()["components"]["schemas"]["RunIn"]

    assert run_in["properties"]["state"]["pattern"] == r"^[^\x00]*$"

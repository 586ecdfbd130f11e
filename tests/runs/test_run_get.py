"""GET and DELETE /sessions/{sessionId}/runs/{runId}."""

from tests.support.readers import assert_error
from tests.support.runs import STATE


def test_a_parked_run_reads_back_with_its_state(api, run_path):
    response = api.get(run_path)

    assert response.status_code == 200
    assert (response.json()["state"], response.json()["callIds"]) == (STATE, ["call_a", "call_b"])


def test_an_unknown_run_or_session_is_not_found(api, session_id):
    assert_error(api.get(f"sessions/{session_id}/runs/nope"), 404, "not_found")
    assert_error(api.get("sessions/nobody/runs/run_1"), 404, "session_not_found")


def test_a_deleted_run_is_gone(api, run_path):
    assert api.delete(run_path).status_code == 204

    assert_error(api.get(run_path), 404, "not_found")
    assert_error(api.delete(run_path), 404, "not_found")


def test_deleting_the_session_deletes_its_runs(api, session_id, run_path):
    assert api.delete(f"sessions/{session_id}").status_code == 204

    assert api.get("runs").json()["total"] == 0

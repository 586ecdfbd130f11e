"""GET /runs: parked runs across sessions; ready=true lists the ones a resumer can take."""

from datetime import timedelta

from django.utils import timezone

from tests.support.readers import assert_error
from tests.support.runs import decide, let_expire


def ready_ids(api, **filters):
    return [run["runId"] for run in api.get("runs", ready="true", **filters).json()["items"]]


def test_a_run_is_ready_once_every_action_it_awaits_is_decided(api, session_id, run_path):
    decide(session_id, "call_a")
    assert ready_ids(api) == []

    decide(session_id, "call_b", "reject")

    assert ready_ids(api) == ["run_1"]
    assert [run["runId"] for run in api.get("runs", ready="false").json()["items"]] == []


def test_an_action_past_its_expiry_counts_as_decided_before_anything_marks_it(api, session_id, run_path):
    decide(session_id, "call_a")
    let_expire(session_id, "call_b", timezone.now() - timedelta(seconds=1))

    assert ready_ids(api) == ["run_1"]


def test_a_claimed_run_is_not_ready_until_its_lease_ends(api, session_id, run_path):
    decide(session_id, "call_a")
    decide(session_id, "call_b")
    api.post(f"{run_path}/claim", {})

    assert ready_ids(api) == []
    assert api.get("runs", ready="false").json()["items"][0]["claimedBy"] == "api key: tests (write)"


def test_runs_are_listed_oldest_first_without_their_state_and_filtered(api, session_id, run_path):
    api.post("sessions", {"sessionId": "other", "agent": "billing"})
    api.post("sessions/other/client-actions", {"callId": "call_x", "name": "charge", "arguments": {}})
    api.put("sessions/other/runs/run_2", {"agent": "billing", "state": "{}", "callIds": ["call_x"]})

    page = api.get("runs", pageSize=1).json()

    assert (page["total"], page["hasMore"], page["items"][0]["runId"]) == (2, True, "run_1")
    assert "state" not in page["items"][0]
    assert [run["runId"] for run in api.get("runs", agent="billing").json()["items"]] == ["run_2"]
    assert [run["runId"] for run in api.get("runs", sessionId=session_id).json()["items"]] == ["run_1"]


def test_it_rejects_bad_pagination(api):
    assert_error(api.get("runs", page="0"), 400, "invalid_input")

"""A session with two client actions waiting, and a run parked on them."""

import pytest

from tests.support.runs import STATE


@pytest.fixture
def session_id(api):
    api.post("sessions", {"sessionId": "support-42", "agent": "support"})
    for call_id in ("call_a", "call_b"):
        api.post("sessions/support-42/client-actions", {"callId": call_id, "name": "issue_refund", "arguments": {}})
    return "support-42"


@pytest.fixture
def run_path(api, session_id):
    response = api.put(
        f"sessions/{session_id}/runs/run_1", {"agent": "support", "state": STATE, "callIds": ["call_a", "call_b"]}
    )
    assert response.status_code == 201, response.json()
    return f"sessions/{session_id}/runs/run_1"

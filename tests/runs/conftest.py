"""A session with two client actions waiting, and a run parked on them."""

import pytest

from historyhub.history.models import ClientAction

STATE = '{"$schemaVersion": "1.22", "currentTurn": 1}'


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


def decide(api, session_id, call_id, decision="approve"):
    response = api.post(f"sessions/{session_id}/client-actions/{call_id}/decision", {"decision": decision})
    assert response.status_code == 200, response.json()


def let_expire(session_id, call_id, moment):
    """The action's expiresAt passes: it lies behind ``moment``, and nothing has marked the action yet."""
    ClientAction.objects.filter(session_id=session_id, call_id=call_id).update(expires_at=moment)

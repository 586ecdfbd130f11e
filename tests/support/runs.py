"""A parked run's saved state, and what moves the client actions it waits on along."""

from historyhub.apikeys.models import ApiKey
from historyhub.history.models import ClientAction
from tests.support.actors import ApiClient

STATE = '{"$schemaVersion": "1.22", "currentTurn": 1}'


def decide(session_id, call_id, decision="approve"):
    """A client application decides (with a decide key: the agent's own key may not)."""
    people = ApiClient(ApiKey.issue("people", "decide")[1])
    response = people.post(f"sessions/{session_id}/client-actions/{call_id}/decision", {"decision": decision})
    assert response.status_code == 200, response.json()


def let_expire(session_id, call_id, moment):
    """The action's expiresAt passes: it lies behind ``moment``, and nothing has marked the action yet."""
    ClientAction.objects.filter(session_id=session_id, call_id=call_id).update(expires_at=moment)

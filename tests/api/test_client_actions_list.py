import pytest

from historyhub.lib.validation import PAGINATION_MESSAGE
from tests.support.readers import assert_error


@pytest.fixture
def actions(api, decide_api):
    for session_id, agent in (("s1", "support"), ("s2", "billing")):
        api.post("sessions", {"sessionId": session_id, "agent": agent})
    for session_id, call_id in (("s1", "c1"), ("s2", "c2"), ("s1", "c3")):
        api.post(f"sessions/{session_id}/client-actions", {"callId": call_id, "name": "n", "arguments": {}})
    decide_api.post("sessions/s1/client-actions/c3/decision", {"decision": "reject"})


def call_ids(response):
    assert response.status_code == 200, response.content
    return [action["callId"] for action in response.json()["items"]]


def test_it_lists_actions_across_sessions_oldest_first(api, actions):
    assert call_ids(api.get("client-actions")) == ["c1", "c2", "c3"]


def test_it_filters_by_status_agent_and_session(api, actions):
    assert call_ids(api.get("client-actions", status="waiting")) == ["c1", "c2"]
    assert call_ids(api.get("client-actions", agent="billing")) == ["c2"]
    assert call_ids(api.get("client-actions", sessionId="s1", status="rejected")) == ["c3"]


def test_it_pages(api, actions):
    page = api.get("client-actions", page=2, pageSize=2).json()

    assert [action["callId"] for action in page["items"]] == ["c3"]
    assert (page["page"], page["pageSize"], page["total"], page["hasMore"]) == (2, 2, 3, False)
    assert api.get("client-actions", pageSize=2).json()["hasMore"] is True


def test_it_rejects_invalid_pagination_with_the_fixed_message(api):
    assert_error(api.get("client-actions", pageSize=1000), 400, "invalid_input", PAGINATION_MESSAGE)


def test_it_rejects_an_unknown_status(api):
    assert assert_error(api.get("client-actions", status="pending"), 400, "invalid_input").startswith("status: ")

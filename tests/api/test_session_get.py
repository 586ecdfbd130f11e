from tests.support.items import user
from tests.support.readers import assert_error


def test_it_returns_the_snapshot(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("hi"), user("again")]})

    snapshot = api.get(f"sessions/{session_id}").json()

    assert snapshot["sessionId"] == session_id
    assert snapshot["agent"] == "support"
    assert snapshot["itemCount"] == 2
    assert snapshot["usage"] is None
    assert snapshot["lineage"] is None


def test_usage_sums_the_usage_of_the_items(api, session_id):
    items = [
        {"type": "evaluation", "id": "e1", "usage": {"inputTokens": 10, "outputTokens": 2}},
        {"type": "evaluation", "id": "e2", "usage": {"inputTokens": 5, "cacheReadTokens": 7}},
    ]
    api.post(f"sessions/{session_id}/items", {"items": items})

    usage = api.get(f"sessions/{session_id}").json()["usage"]

    assert usage == {"inputTokens": 15, "outputTokens": 2, "cacheReadTokens": 7}


def test_it_answers_404_for_an_unknown_session(api):
    assert_error(api.get("sessions/nobody"), 404, "session_not_found", "Session 'nobody' was not found.")


def test_it_answers_400_for_an_invalid_session_id(api):
    message = assert_error(api.get("sessions/has space"), 400, "invalid_input")
    assert message.startswith("sessionId: ")

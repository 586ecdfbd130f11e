from historyhub.history.models import ClientAction, Item
from tests.support.items import user
from tests.support.readers import assert_error


def test_it_deletes_the_session_and_all_it_owns(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("hi")]})
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "n", "arguments": {}})

    response = api.delete(f"sessions/{session_id}")

    assert response.status_code == 204
    assert response.content == b""
    assert_error(api.get(f"sessions/{session_id}"), 404, "session_not_found")
    assert not Item.objects.filter(session_id=session_id).exists()
    assert not ClientAction.objects.filter(session_id=session_id).exists()


def test_a_child_goes_with_its_deleted_parent(api):
    api.post("sessions", {"sessionId": "parent", "agent": "planner"})
    api.post("sessions", {"sessionId": "child", "agent": "a", "parentSessionId": "parent", "parentCallId": "c"})
    api.post("sessions", {"sessionId": "grandchild", "agent": "a", "parentSessionId": "child", "parentCallId": "d"})
    api.post("sessions", {"sessionId": "other", "agent": "a"})

    api.delete("sessions/parent")

    assert [api.get(f"sessions/{name}").status_code for name in ("child", "grandchild", "other")] == [404, 404, 200]


def test_it_answers_404_for_an_unknown_session(api):
    assert_error(api.delete("sessions/nobody"), 404, "session_not_found")

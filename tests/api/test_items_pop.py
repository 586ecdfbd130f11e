from tests.support.items import assistant, user
from tests.support.readers import assert_error, items_via_api


def test_it_removes_and_returns_the_newest_item(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("question"), assistant("answer")]})

    response = api.post(f"sessions/{session_id}/items/pop")

    assert response.status_code == 200
    assert response.json() == {"item": assistant("answer")}
    assert items_via_api(api, session_id) == [user("question")]
    assert api.get(f"sessions/{session_id}").json()["itemCount"] == 1


def test_the_timeline_forgets_the_popped_item(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("question"), assistant("answer")]})

    api.post(f"sessions/{session_id}/items/pop")

    history = api.get(f"sessions/{session_id}/history").json()
    assert history["total"] == 1
    assert [item["id"] for item in history["items"]] == ["message:1"]


def test_a_popped_position_is_not_reused(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("one"), user("two")]})
    api.post(f"sessions/{session_id}/items/pop")

    api.post(f"sessions/{session_id}/items", {"items": [user("three")]})

    ids = [item["id"] for item in api.get(f"sessions/{session_id}/history").json()["items"]]
    assert ids == ["message:1", "message:3"]


def test_an_empty_session_pops_null(api, session_id):
    assert api.post(f"sessions/{session_id}/items/pop").json() == {"item": None}


def test_an_unknown_session_pops_null(api):
    assert api.post("sessions/nobody/items/pop").json() == {"item": None}
    assert_error(api.get("sessions/nobody"), 404, "session_not_found")

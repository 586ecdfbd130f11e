from tests.support.items import assistant, user
from tests.support.readers import assert_error, items_via_api


def test_the_logical_history_becomes_exactly_the_items(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old"), assistant("old answer")]})

    response = api.put(f"sessions/{session_id}/items", {"items": [user("new", id="m1")]})

    assert response.status_code == 200
    assert response.json() == {"itemCount": 1}
    assert items_via_api(api, session_id) == [user("new", id="m1")]
    assert [item["content"][0]["text"] for item in api.get(f"sessions/{session_id}/history").json()["items"]] == ["new"]


def test_an_id_of_the_old_history_may_come_back(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old", id="m1")]})

    api.put(f"sessions/{session_id}/items", {"items": [user("again", id="m1")]})

    assert items_via_api(api, session_id) == [user("again", id="m1")]


def test_an_empty_list_empties_the_history(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old")]})

    assert api.put(f"sessions/{session_id}/items", {"items": []}).json() == {"itemCount": 0}
    assert items_via_api(api, session_id) == []


def test_it_creates_the_session(api):
    api.put("sessions/new-1/items", {"items": [user("hi")], "agent": "support"})

    assert api.get("sessions/new-1").json()["agent"] == "support"


def test_a_bad_item_changes_nothing(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old")]})

    response = api.put(f"sessions/{session_id}/items", {"items": [user("new"), 7]})

    assert_error(response, 400, "invalid_input", "item at index 1 is not an object")
    assert items_via_api(api, session_id) == [user("old")]

from historyhub.history.models import Item
from tests.support.items import assistant, user
from tests.support.readers import assert_error, items_via_api

COMPACTION = {"type": "compaction", "id": "cmp-1", "encrypted_content": "summary"}


def test_the_logical_history_continues_from_the_compaction(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old question"), assistant("old answer")]})

    response = api.post(f"sessions/{session_id}/compaction", {"items": [COMPACTION, user("kept")]})

    assert response.status_code == 200
    assert response.json() == {"changed": True, "itemCount": 2}
    assert items_via_api(api, session_id) == [COMPACTION, user("kept")]
    assert api.get(f"sessions/{session_id}").json()["sessionId"] == session_id


def test_archived_items_leave_every_projection_but_are_kept(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old question"), assistant("old answer")]})

    api.post(f"sessions/{session_id}/compaction", {"items": [COMPACTION, user("kept")]})

    history = api.get(f"sessions/{session_id}/history").json()
    assert [item["content"][0]["text"] for item in history["items"]] == ["kept"]
    assert api.get(f"sessions/{session_id}/messages").json() == {"messages": [{"role": "user", "content": "kept"}]}
    assert [entry["userIntent"] for entry in api.get(f"sessions/{session_id}/entries").json()["entries"]] == ["kept"]
    assert Item.objects.filter(session_id=session_id).count() == 4


def test_a_replacement_equal_to_the_history_changes_nothing(api, session_id):
    api.post(f"sessions/{session_id}/compaction", {"items": [COMPACTION, user("kept")]})
    before = api.get(f"sessions/{session_id}").json()

    response = api.post(f"sessions/{session_id}/compaction", {"items": [COMPACTION, user("kept")]})

    assert response.json() == {"changed": False, "itemCount": 2}
    assert api.get(f"sessions/{session_id}").json() == before


def test_the_items_must_hold_a_compaction_item_first_or_last(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("old")]})

    response = api.post(f"sessions/{session_id}/compaction", {"items": [user("not a compaction")]})

    assert_error(response, 400, "invalid_input", 'items must hold an item of type "compaction", first or last.')
    assert items_via_api(api, session_id) == [user("old")]


def test_an_empty_list_is_rejected(api, session_id):
    assert_error(api.post(f"sessions/{session_id}/compaction", {"items": []}), 400, "invalid_input")

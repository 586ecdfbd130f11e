from tests.support.items import assistant, user
from tests.support.readers import assert_error, items_via_api

ODD_ITEMS = [
    {"type": "message", "role": "user", "content": "héllo \u0000 ✓", "ZCase": 1, "aCase": 2},
    {"id": "x", "big": 12345678901234567890123, "float": 1.5, "nested": {"b": [1, None, True], "a": {}}},
    {"role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
]


def test_it_returns_the_items_verbatim_in_order(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": ODD_ITEMS})

    assert items_via_api(api, session_id) == ODD_ITEMS


def test_it_keeps_the_key_order_of_each_item(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": ODD_ITEMS})

    response = api.get(f"sessions/{session_id}/items")

    body = b"".join(response.streaming_content).decode()
    assert body.index('"ZCase"') < body.index('"aCase"')
    assert body.index('"b"') < body.index('"a"')


def test_limit_returns_the_newest_items_in_chronological_order(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("1"), assistant("2"), user("3"), assistant("4")]})

    newest = items_via_api(api, session_id, limit=2)

    assert newest == [user("3"), assistant("4")]


def test_limit_zero_returns_no_items(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("1")]})

    assert items_via_api(api, session_id, limit=0) == []


def test_a_limit_beyond_the_history_returns_every_item(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("1"), user("2")]})

    assert items_via_api(api, session_id, limit=3) == [user("1"), user("2")]
    assert items_via_api(api, session_id, limit=10**30) == [user("1"), user("2")]


def test_an_unknown_session_has_no_items(api):
    assert items_via_api(api, "nobody") == []


def test_it_rejects_a_negative_limit(api, session_id):
    assert_error(
        api.get(f"sessions/{session_id}/items", limit=-1),
        400,
        "invalid_input",
        "limit: Input should be greater than or equal to 0",
    )


def test_it_rejects_an_invalid_session_id(api):
    assert_error(api.get("sessions/_bad/items"), 400, "invalid_input")


def test_a_long_history_streams_whole(api, session_id):
    items = [{"id": f"m{n}", "role": "user", "content": "x" * 1000} for n in range(1000)]
    api.post(f"sessions/{session_id}/items", {"items": items})

    response = api.get(f"sessions/{session_id}/items")

    assert response.streaming
    assert len(list(response.streaming_content)) > 1
    assert items_via_api(api, session_id) == items

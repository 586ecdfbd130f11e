from tests.support.items import assistant, user


def entries(api, session_id):
    response = api.get(f"sessions/{session_id}/entries")
    assert response.status_code == 200
    return response.json()["entries"]


def test_each_user_message_opens_a_turn_with_the_assistant_text(api, session_id):
    api.post(
        f"sessions/{session_id}/items",
        {
            "items": [
                {
                    "type": "message",
                    "role": "user",
                    "id": "m1",
                    "content": [{"type": "input_text", "text": "two"}, {"type": "input_text", "text": "parts"}],
                },
                assistant("First."),
                assistant("Second."),
                user("again"),
            ]
        },
    )

    first, second = entries(api, session_id)

    assert first["kind"] == "turn"
    assert (first["id"], first["sessionId"]) == ("m1", session_id)
    assert first["userIntent"] == "two parts"
    assert first["assistantMessage"] == "First.\n\nSecond."
    assert (second["id"], second["userIntent"], second["assistantMessage"]) == ("message:4", "again", "")


def test_assistant_messages_before_the_first_user_message_are_injections(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [assistant("Welcome!"), user("hi")]})

    injection, turn = entries(api, session_id)

    assert injection == {
        "kind": "injection",
        "id": "message:1",
        "sessionId": session_id,
        "timestamp": injection["timestamp"],
        "content": "Welcome!",
    }
    assert turn["kind"] == "turn"


def test_the_timestamp_is_the_items_own_when_it_has_one(api, session_id):
    api.post(
        f"sessions/{session_id}/items",
        {
            "items": [
                user("epoch", timestamp=1790000000123),
                user("iso", createdAt="2026-09-28T12:00:04Z"),
            ]
        },
    )

    first, second = entries(api, session_id)

    assert first["timestamp"] == 1790000000123
    assert second["timestamp"] == 1790596804000


def test_an_unknown_session_has_no_entries(api):
    assert entries(api, "nobody") == []

from tests.support.items import assistant, function_call, function_output, user


def lookup(api, session_id, message_id):
    response = api.get(f"sessions/{session_id}/responses/{message_id}")
    assert response.status_code == 200
    return response.json()


def test_a_user_message_with_a_response_is_a_hit(api, session_id):
    items = [
        user("weather?", id="m1"),
        function_call("call-1", "get_weather", {"city": "Oslo"}),
        function_output("call-1", "rain"),
        assistant("It rains."),
        user("thanks", id="m2"),
        assistant("You're welcome."),
    ]
    api.post(f"sessions/{session_id}/items", {"items": items})

    result = lookup(api, session_id, "m1")

    assert result["result"] == "hit"
    assert result["items"] == items[1:4]
    entry = result["entry"]
    assert (entry["kind"], entry["id"], entry["sessionId"]) == ("turn", "m1", session_id)
    assert (entry["userIntent"], entry["assistantMessage"]) == ("weather?", "It rains.")
    assert isinstance(entry["timestamp"], int)


def test_a_message_without_an_id_is_found_by_its_position(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("hi"), assistant("hello")]})

    assert lookup(api, session_id, "message:1")["result"] == "hit"


def test_an_unknown_id_an_unknown_session_or_a_turn_without_response_is_a_miss(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("waiting", id="m1")]})

    assert lookup(api, session_id, "m1") == {"result": "miss"}
    assert lookup(api, session_id, "nope") == {"result": "miss"}
    assert lookup(api, "nobody", "m1") == {"result": "miss"}


def test_an_item_that_is_not_a_user_message_is_a_kind_mismatch(api, session_id):
    api.post(
        f"sessions/{session_id}/items",
        {
            "items": [
                user("q", id="m1"),
                function_call("call-1", "f", {}) | {"id": "fc-1"},
                assistant("a", id="a1"),
            ]
        },
    )

    assert lookup(api, session_id, "fc-1") == {"result": "kind_mismatch", "kind": "function_call"}
    assert lookup(api, session_id, "a1") == {"result": "kind_mismatch", "kind": "message"}


def test_an_injection_is_a_kind_mismatch_of_kind_injection(api, session_id):
    api.post(f"sessions/{session_id}/injections", {"id": "inj-1", "content": "Note"})

    assert lookup(api, session_id, "inj-1") == {"result": "kind_mismatch", "kind": "injection"}

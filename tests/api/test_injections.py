from tests.api.wire import assert_error, stored_items, user


def test_it_stores_an_assistant_message_and_returns_its_entry(api, session_id):
    response = api.post(f"sessions/{session_id}/injections", {"id": "inj-1", "content": "Your order shipped."})

    assert response.status_code == 201
    entry = response.json()
    assert entry == {
        "kind": "injection",
        "id": "inj-1",
        "sessionId": session_id,
        "timestamp": entry["timestamp"],
        "content": "Your order shipped.",
    }
    [item] = stored_items(api, session_id)
    assert (item["role"], item["content"][0]["text"]) == ("assistant", "Your order shipped.")


def test_an_injection_belongs_to_no_turn(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("q")]})

    api.post(f"sessions/{session_id}/injections", {"content": "Meanwhile…"})

    turn, injection = api.get(f"sessions/{session_id}/entries").json()["entries"]
    assert turn["assistantMessage"] == ""
    assert (injection["kind"], injection["content"]) == ("injection", "Meanwhile…")


def test_repeating_an_injection_id_returns_the_stored_one(api, session_id):
    first = api.post(f"sessions/{session_id}/injections", {"id": "inj-1", "content": "Once"}).json()

    again = api.post(f"sessions/{session_id}/injections", {"id": "inj-1", "content": "Once"})

    assert again.json() == first
    assert len(stored_items(api, session_id)) == 1


def test_an_id_taken_by_another_item_is_rejected(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("q", id="m1")]})

    response = api.post(f"sessions/{session_id}/injections", {"id": "m1", "content": "x"})

    assert_error(response, 400, "invalid_input", "id 'm1' already names an item that is not an injection.")
    assert stored_items(api, session_id) == [user("q", id="m1")]


def test_it_requires_text_content(api, session_id):
    assert_error(
        api.post(f"sessions/{session_id}/injections", {"content": 5}),
        400,
        "invalid_input",
        "content: Input should be a valid string",
    )
    assert_error(api.post(f"sessions/{session_id}/injections", {}), 400, "invalid_input", "content: Field required")

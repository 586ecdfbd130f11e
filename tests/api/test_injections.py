from tests.support.items import user
from tests.support.readers import assert_error, items_via_api


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
    [item] = items_via_api(api, session_id)
    assert (item["role"], item["content"][0]["text"]) == ("assistant", "Your order shipped.")


def test_an_injection_belongs_to_no_turn(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("q")]})

    api.post(f"sessions/{session_id}/injections", {"content": "Meanwhile…"})

    turn, injection = api.get(f"sessions/{session_id}/entries").json()["entries"]
    assert turn["assistantMessage"] == ""
    assert (injection["kind"], injection["content"]) == ("injection", "Meanwhile…")


def test_a_retried_injection_with_its_idempotency_key_is_stored_once(api, session_id):
    headers = {"Idempotency-Key": "inject-once"}
    first = api.post(f"sessions/{session_id}/injections", {"id": "inj-1", "content": "Once"}, headers=headers)

    again = api.post(f"sessions/{session_id}/injections", {"id": "inj-1", "content": "Once"}, headers=headers)

    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert len(items_via_api(api, session_id)) == 1


def test_an_injection_may_reuse_the_id_of_another_item(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("q", id="m1")]})

    response = api.post(f"sessions/{session_id}/injections", {"id": "m1", "content": "x"})

    assert response.status_code == 201
    assert [item["id"] for item in items_via_api(api, session_id)] == ["m1", "m1"]


def test_it_requires_text_content(api, session_id):
    assert_error(
        api.post(f"sessions/{session_id}/injections", {"content": 5}),
        400,
        "invalid_input",
        "content: Input should be a valid string",
    )
    assert_error(api.post(f"sessions/{session_id}/injections", {}), 400, "invalid_input", "content: Field required")

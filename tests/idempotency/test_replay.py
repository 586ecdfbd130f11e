"""A keyed write is applied once; an equal repeat gets its answer back, a different one 409."""

import pytest

from historyhub.apikeys.models import ApiKey
from historyhub.history import sessions
from historyhub.idempotency import records
from historyhub.idempotency.models import IdempotencyRecord
from tests.support.actors import KeyedApiClient
from tests.support.items import user
from tests.support.readers import assert_error, items_via_api

REUSED = "This Idempotency-Key was already used with a different request."


def assert_replayed(repeat, first):
    assert (repeat.status_code, repeat.content) == (first.status_code, first.content)
    assert repeat["Content-Type"] == first["Content-Type"]
    assert repeat["Idempotent-Replayed"] == "true"


def test_an_equal_repeat_gets_the_recorded_answer_and_stores_nothing_again(api, keyed, session_id):
    client = keyed("append-1")
    body = {"items": [user("hello"), user("again")]}

    first = client.post(f"sessions/{session_id}/items", body)
    repeat = client.post(f"sessions/{session_id}/items", body)

    assert first.status_code == 200
    assert first.json() == {"inserted": [True, True], "itemCount": 2}
    assert not first.has_header("Idempotent-Replayed")
    assert_replayed(repeat, first)
    assert items_via_api(api, session_id) == [user("hello"), user("again")]


def test_a_repeat_equal_as_json_is_replayed_whatever_its_key_order_layout_and_number_form(api, keyed, session_id):
    client = keyed("append-1")
    first = client.post(
        f"sessions/{session_id}/items", raw='{"agent":"support","items":[{"role":"user","content":"hi","n":1}]}'
    )

    repeat = client.post(
        f"sessions/{session_id}/items",
        raw='{ "items": [ {"n": 1.0, "content": "hi", "role": "user"} ],\n  "agent": "support" }',
    )

    assert first.status_code == 200
    assert_replayed(repeat, first)
    assert items_via_api(api, session_id) == [{"role": "user", "content": "hi", "n": 1}]


def test_true_and_1_are_different_bodies(keyed, session_id):
    client = keyed("append-1")
    client.post(f"sessions/{session_id}/items", {"items": [{"role": "user", "content": "hi", "flag": 1}]})

    repeat = client.post(f"sessions/{session_id}/items", {"items": [{"role": "user", "content": "hi", "flag": True}]})

    assert_error(repeat, 409, "idempotency_key_reused", REUSED)


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("POST", "sessions/support-42/items", {"items": [user("second")]}),
        ("POST", "sessions/elsewhere/items", {"items": [user("first")]}),
        ("PUT", "sessions/support-42/items", {"items": [user("first")]}),
    ],
    ids=["another body", "another path", "another method"],
)
def test_the_same_key_for_a_different_request_is_refused_and_changes_nothing(
    api, keyed, session_id, method, path, body
):
    client = keyed("append-1")
    client.post(f"sessions/{session_id}/items", {"items": [user("first")]})

    response = client.request(method, path, body)

    assert_error(response, 409, "idempotency_key_reused", REUSED)
    assert items_via_api(api, session_id) == [user("first")]
    assert api.get("sessions/elsewhere").status_code == 404


def test_a_key_belongs_to_its_api_key_so_another_api_key_may_use_it_for_another_request(
    api, keyed, other_write_key, session_id
):
    keyed("shared").post(f"sessions/{session_id}/items", {"items": [user("mine")]})
    theirs = KeyedApiClient(other_write_key, "shared")

    response = theirs.post(f"sessions/{session_id}/items", {"items": [user("theirs")]})

    assert response.status_code == 200
    assert not response.has_header("Idempotent-Replayed")
    assert items_via_api(api, session_id) == [user("mine"), user("theirs")]


def test_a_4xx_answer_is_recorded_and_replayed_even_after_the_request_would_succeed(api, keyed):
    client = keyed("rename-1")
    first = client.patch("sessions/later", {"name": "renamed"})
    api.post("sessions", {"sessionId": "later", "agent": "support"})

    repeat = client.patch("sessions/later", {"name": "renamed"})

    assert_error(first, 404, "session_not_found")
    assert_replayed(repeat, first)
    assert api.get("sessions/later").json()["name"] != "renamed"


def test_a_request_body_that_is_not_json_is_compared_byte_for_byte(keyed, session_id):
    client = keyed("broken-1")
    first = client.post(f"sessions/{session_id}/items", raw="{not json")

    repeat = client.post(f"sessions/{session_id}/items", raw="{not json")
    other = client.post(f"sessions/{session_id}/items", raw="{not json!")

    assert_error(first, 400, "invalid_input")
    assert_replayed(repeat, first)
    assert_error(other, 409, "idempotency_key_reused", REUSED)


def test_an_empty_body_is_a_value_of_its_own(api, keyed, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("one"), user("two")]})
    client = keyed("pop-1")

    first = client.post(f"sessions/{session_id}/items/pop", raw="")
    repeat = client.post(f"sessions/{session_id}/items/pop", raw="")
    with_an_object = client.post(f"sessions/{session_id}/items/pop", {})

    assert first.json() == {"item": user("two")}
    assert_replayed(repeat, first)
    assert_error(with_an_object, 409, "idempotency_key_reused", REUSED)
    assert items_via_api(api, session_id) == [user("one")]


def test_a_repeated_delete_answers_204_again_and_deletes_nothing_added_since(api, keyed, session_id):
    client = keyed("clear-1")
    api.post(f"sessions/{session_id}/items", {"items": [user("old")]})
    first = client.delete(f"sessions/{session_id}/items")
    api.post(f"sessions/{session_id}/items", {"items": [user("new")]})

    repeat = client.delete(f"sessions/{session_id}/items")

    assert first.status_code == 204
    assert_replayed(repeat, first)
    assert items_via_api(api, session_id) == [user("new")]


def test_a_repeat_that_finds_the_key_taken_only_when_it_inserts_gets_the_recorded_answer(
    api, keyed, session_id, monkeypatch
):
    """The look before the transaction may miss a record committed just after it; the insert decides."""
    client = keyed("append-1")
    first = client.post(f"sessions/{session_id}/items", {"items": [user("once")]})
    found = records.find
    looks = []

    def missing_at_first_look(api_key, key):
        looks.append(key)
        return None if len(looks) == 1 else found(api_key, key)

    monkeypatch.setattr(records, "find", missing_at_first_look)

    repeat = client.post(f"sessions/{session_id}/items", {"items": [user("once")]})

    assert looks == ["append-1", "append-1"]
    assert_replayed(repeat, first)
    assert items_via_api(api, session_id) == [user("once")]


def test_a_5xx_answer_is_rolled_back_with_its_record_so_a_retry_applies_the_request(api, keyed, monkeypatch):
    ensure = sessions.ensure

    def create_then_fail(*args, **kwargs):
        ensure(*args, **kwargs)
        raise RuntimeError("the server failed after the change")

    monkeypatch.setattr(sessions, "ensure", create_then_fail)
    client = keyed("create-1", raise_request_exception=False)

    failed = client.post("sessions", {"sessionId": "fragile", "agent": "support"})

    assert failed.status_code == 500
    assert api.get("sessions/fragile").status_code == 404
    assert not IdempotencyRecord.objects.exists()

    monkeypatch.setattr(sessions, "ensure", ensure)
    retried = client.post("sessions", {"sessionId": "fragile", "agent": "support"})

    assert retried.status_code == 201
    assert not retried.has_header("Idempotent-Replayed")


def test_a_change_is_rolled_back_when_its_answer_cannot_be_recorded(api, keyed, session_id, monkeypatch):
    def fail(api_key, key, response):
        raise RuntimeError("the record could not be written")

    monkeypatch.setattr(records, "finish", fail)

    response = keyed("append-1", raise_request_exception=False).post(
        f"sessions/{session_id}/items", {"items": [user("lost")]}
    )

    assert response.status_code == 500
    assert items_via_api(api, session_id) == []
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.parametrize("status", [200, 201, 204, 400, 403, 404, 409, 413])
def test_success_and_client_errors_are_recorded(status):
    assert records.is_recorded(status)


@pytest.mark.parametrize("status", [429, 500, 502, 503])
def test_server_errors_and_rate_limits_are_not_recorded(status):
    assert not records.is_recorded(status)


def test_deleting_an_api_key_deletes_its_records(keyed, write_key, session_id):
    keyed("append-1").post(f"sessions/{session_id}/items", {"items": [user("hello")]})

    ApiKey.objects.all().delete()

    assert not IdempotencyRecord.objects.exists()

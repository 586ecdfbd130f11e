"""Which requests the Idempotency-Key header applies to, and which values it may have."""

import pytest

from historyhub.apikeys.models import ApiKey
from historyhub.idempotency.models import IdempotencyRecord
from tests.support.actors import KeyedApiClient
from tests.support.items import user
from tests.support.readers import assert_error, items_via_api

INVALID = "Idempotency-Key must be 1 to 255 printable ASCII characters."


@pytest.mark.parametrize(
    "value",
    ["", "k" * 256, "clé", "tab\there", "bell\x07", "delete\x7f"],
    ids=["empty", "256 characters", "accent", "tab", "bell", "del"],
)
def test_a_key_that_is_not_1_to_255_printable_ascii_characters_is_refused(api, write_key, session_id, value):
    response = KeyedApiClient(write_key, value).post(f"sessions/{session_id}/items", {"items": [user("hi")]})

    assert_error(response, 400, "invalid_input", INVALID)
    assert items_via_api(api, session_id) == []


@pytest.mark.parametrize("value", ["k" * 255, "a b ~!", "7"], ids=["255", "spaces and symbols", "one"])
def test_any_1_to_255_printable_ascii_characters_make_a_key(api, write_key, session_id, value):
    client = KeyedApiClient(write_key, value)

    client.post(f"sessions/{session_id}/items", {"items": [user("hi")]})
    repeat = client.post(f"sessions/{session_id}/items", {"items": [user("hi")]})

    assert repeat.status_code == 200
    assert repeat["Idempotent-Replayed"] == "true"
    assert IdempotencyRecord.objects.get().key == value
    assert items_via_api(api, session_id) == [user("hi")]


def test_writes_without_the_header_are_applied_every_time_and_not_recorded(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("hi")]})
    response = api.post(f"sessions/{session_id}/items", {"items": [user("hi")]})

    assert response.json() == {"inserted": [True], "itemCount": 2}
    assert not IdempotencyRecord.objects.exists()


def test_a_get_ignores_the_header_even_when_its_value_is_invalid(write_key, session_id):
    response = KeyedApiClient(write_key, "").get(f"sessions/{session_id}")

    assert response.status_code == 200
    assert not IdempotencyRecord.objects.exists()


def test_without_a_valid_api_key_the_answer_is_401_and_nothing_is_recorded(anonymous, session_id):
    unknown = KeyedApiClient("hh_not-a-key", "append-1")
    without = KeyedApiClient(None, "append-1")

    for client in (unknown, without):
        assert_error(client.post(f"sessions/{session_id}/items", {"items": [user("hi")]}), 401, "unauthorized")
    assert not IdempotencyRecord.objects.exists()


def test_a_read_key_writing_is_answered_403_and_nothing_is_recorded(read_key, session_id):
    response = KeyedApiClient(read_key, "append-1").post(f"sessions/{session_id}/items", {"items": [user("hi")]})

    assert_error(response, 403, "forbidden")
    assert not IdempotencyRecord.objects.exists()


def test_the_api_key_is_looked_up_once_for_a_keyed_write(write_key, session_id, monkeypatch):
    authenticate = ApiKey.authenticate
    lookups = []

    def counted(key):
        lookups.append(key)
        return authenticate(key)

    monkeypatch.setattr(ApiKey, "authenticate", counted)

    response = KeyedApiClient(write_key, "append-1").post(f"sessions/{session_id}/items", {"items": [user("hi")]})

    assert response.status_code == 200
    assert lookups == [write_key]

"""A keyed write is applied once; an equal repeat gets its answer back, a different one 409.

Faults are injected at the database, where the middleware meets it (``database_fault``), never by replacing
our own functions."""

from contextlib import contextmanager

import pytest
from django.db import OperationalError, connection

from historyhub.apikeys.models import ApiKey
from historyhub.history.models import Session
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


@contextmanager
def database_fault(statement, fault):
    """``fault(execute, sql, params, many, context)`` runs in place of the first statement the database is sent that
    starts with ``statement``, at the database edge (Django's execute_wrapper); every other statement runs as sent."""
    pending = [statement]

    def wrapper(execute, sql, params, many, context):
        if pending and sql.startswith(pending[0]):
            pending.clear()
            return fault(execute, sql, params, many, context)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield pending


def went_away(*args):
    """The statement fails as it does when the database dropped the connection."""
    raise OperationalError("server closed the connection unexpectedly")


def table(model):
    return connection.ops.quote_name(model._meta.db_table)


def test_a_record_pruned_between_the_insert_that_found_the_key_and_the_read_of_it_frees_the_key(api, keyed, session_id):
    """Nothing is looked up before the transaction: the key's insert decides. When it finds the key taken, the
    record is read in the same transaction; a prune that deleted it in between (on PostgreSQL a concurrent
    prune's committed DELETE reads the same; on SQLite no other connection writes inside the request's IMMEDIATE
    transaction) leaves the key free, so the insert is tried again, takes it, and the request is applied as a new
    one, as after any prune. The prune's DELETE is sent at the database, just before that read."""
    client = keyed("append-1")
    first = client.post(f"sessions/{session_id}/items", {"items": [user("once")]})

    def pruned_first(execute, sql, params, many, context):
        execute(f'DELETE FROM {table(IdempotencyRecord)} WHERE "key" = %s', ["append-1"], False, context)
        return execute(sql, params, many, context)

    with database_fault(f"SELECT {table(IdempotencyRecord)}.", pruned_first) as pending:
        again = client.post(f"sessions/{session_id}/items", {"items": [user("once")]})

    assert not pending, "the key's record was never read"
    assert first.status_code == again.status_code == 200 and not again.has_header("Idempotent-Replayed")
    assert items_via_api(api, session_id) == [user("once"), user("once")]
    assert_replayed(client.post(f"sessions/{session_id}/items", {"items": [user("once")]}), again)


def test_a_5xx_answer_is_rolled_back_with_its_record_so_a_retry_applies_the_request(api, keyed):
    """The database goes away after the session's row is inserted, before the write finishes: 503, and nothing of
    the write, its record included, is kept."""
    client = keyed("create-1", raise_request_exception=False)

    with database_fault(f"UPDATE {table(Session)}", went_away) as pending:
        failed = client.post("sessions", {"sessionId": "fragile", "agent": "support"})

    assert not pending and failed.status_code == 503
    assert api.get("sessions/fragile").status_code == 404
    assert not IdempotencyRecord.objects.exists()

    retried = client.post("sessions", {"sessionId": "fragile", "agent": "support"})

    assert retried.status_code == 201
    assert not retried.has_header("Idempotent-Replayed")


def test_a_change_is_rolled_back_when_its_answer_cannot_be_recorded(api, keyed, session_id):
    """The database goes away as the answer is written into the key's record: the change goes with it."""
    with database_fault(f"UPDATE {table(IdempotencyRecord)}", went_away) as pending:
        response = keyed("append-1", raise_request_exception=False).post(
            f"sessions/{session_id}/items", {"items": [user("lost")]}
        )

    assert not pending and response.status_code == 503
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

import pytest

from tests.support.items import assistant, user
from tests.support.readers import assert_error, items_via_api

OPERATION_CONFLICT = "Session history operation was already applied with a different transaction."
SUFFIX_MISMATCH = "Session history suffix no longer matches the transaction precondition."


def apply(api, session_id, operation_id, transaction):
    return api.post(f"sessions/{session_id}/transactions", {"operationId": operation_id, "transaction": transaction})


def test_it_appends_items(api, session_id):
    response = apply(api, session_id, "op-1", {"type": "append_items", "items": [user("hi")]})

    assert response.status_code == 200
    assert response.json() == {"applied": True}
    assert items_via_api(api, session_id) == [user("hi")]


def test_a_repeat_with_an_equal_transaction_is_not_applied_again(api, session_id):
    apply(api, session_id, "op-1", {"type": "append_items", "items": [{"role": "user", "content": "hi", "n": 1}]})

    repeat = {"items": [{"n": 1.0, "content": "hi", "role": "user"}], "type": "append_items"}
    response = apply(api, session_id, "op-1", repeat)

    assert response.json() == {"applied": False}
    assert len(items_via_api(api, session_id)) == 1


def test_it_rejects_a_reused_operation_id(api, session_id):
    apply(api, session_id, "op-1", {"type": "append_items", "items": [user("hi")]})

    response = apply(api, session_id, "op-1", {"type": "append_items", "items": [user("other")]})

    assert_error(response, 409, "operation_conflict", OPERATION_CONFLICT)
    assert items_via_api(api, session_id) == [user("hi")]


def test_fields_beyond_the_known_ones_count_in_the_comparison(api, session_id):
    apply(api, session_id, "op-1", {"type": "append_items", "items": [], "note": "a"})

    response = apply(api, session_id, "op-1", {"type": "append_items", "items": [], "note": "b"})

    assert_error(response, 409, "operation_conflict", OPERATION_CONFLICT)


def test_it_replaces_a_matching_suffix(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("q"), assistant("draft")]})

    response = apply(
        api,
        session_id,
        "op-1",
        {
            "type": "replace_suffix",
            "expectedSuffix": [assistant("draft")],
            "replacement": [assistant("final")],
        },
    )

    assert response.json() == {"applied": True}
    assert items_via_api(api, session_id) == [user("q"), assistant("final")]


def test_it_rejects_a_suffix_that_no_longer_matches(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [user("q"), assistant("draft")]})

    response = apply(
        api,
        session_id,
        "op-1",
        {
            "type": "replace_suffix",
            "expectedSuffix": [assistant("other")],
            "replacement": [assistant("final")],
        },
    )

    assert_error(response, 409, "suffix_mismatch", SUFFIX_MISMATCH)
    assert items_via_api(api, session_id) == [user("q"), assistant("draft")]
    retry = apply(api, session_id, "op-1", {"type": "append_items", "items": []})
    assert retry.json() == {"applied": True}, "a failed operation is not recorded"


@pytest.mark.parametrize(
    "body",
    [
        {"operationId": "", "transaction": {"type": "append_items", "items": []}},
        {"operationId": "op-1", "transaction": {"type": "rewrite", "items": []}},
        {"operationId": "op-1", "transaction": {"type": "append_items"}},
        {"operationId": "op-1", "transaction": {"type": "append_items", "items": [1]}},
        {"transaction": {"type": "append_items", "items": []}},
    ],
)
def test_it_rejects_a_malformed_transaction_and_changes_nothing(api, session_id, body):
    response = api.post(f"sessions/{session_id}/transactions", body)

    assert_error(response, 400, "invalid_input")
    assert items_via_api(api, session_id) == []

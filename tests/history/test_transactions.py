import pytest

from historyhub.history import item_log, sessions, transactions
from historyhub.history.models import Operation
from historyhub.lib.errors import InvalidInput, OperationConflict, SuffixMismatch
from tests.support.items import assistant, function_call, user
from tests.support.readers import items_in_log, timeline, timeline_item


def append_items(*items):
    return {"type": "append_items", "items": list(items)}


def replace_suffix(expected, replacement):
    return {"type": "replace_suffix", "expectedSuffix": expected, "replacement": replacement}


def test_append_items_is_applied_once(session_id):
    applied = transactions.apply(session_id, "op_1", append_items(user("hello", id="msg_1"), assistant("hi")))

    assert applied is True
    assert items_in_log(session_id) == [user("hello", id="msg_1"), assistant("hi")]
    assert [item["id"] for item in timeline(session_id)] == ["message:1", "message:2"]


def test_a_repeat_with_an_equal_transaction_changes_nothing(session_id):
    transactions.apply(session_id, "op_1", append_items(assistant("hi")))
    version = sessions.get(session_id).version

    applied = transactions.apply(session_id, "op_1", append_items(assistant("hi")))

    assert applied is False
    assert items_in_log(session_id) == [assistant("hi")]
    assert sessions.get(session_id).version == version


def test_key_order_does_not_make_transactions_different(session_id):
    transactions.apply(
        session_id, "op_1", {"type": "append_items", "items": [{"role": "user", "content": "x", "n": 1}]}
    )

    applied = transactions.apply(
        session_id, "op_1", {"items": [{"n": 1.0, "content": "x", "role": "user"}], "type": "append_items"}
    )

    assert applied is False
    assert items_in_log(session_id) == [{"role": "user", "content": "x", "n": 1}]


def test_reusing_an_operation_id_with_a_different_transaction_is_a_conflict(session_id):
    transactions.apply(session_id, "op_1", append_items(assistant("hi")))

    with pytest.raises(OperationConflict) as error:
        transactions.apply(session_id, "op_1", append_items(assistant("hello")))

    assert error.value.code == "operation_conflict"
    assert error.value.status == 409
    assert error.value.message == "Session history operation was already applied with a different transaction."
    assert items_in_log(session_id) == [assistant("hi")]


def test_true_and_one_are_different_transactions(session_id):
    transactions.apply(session_id, "op_1", append_items({"type": "flag", "value": True}))

    with pytest.raises(OperationConflict):
        transactions.apply(session_id, "op_1", append_items({"type": "flag", "value": 1}))


def test_operation_ids_belong_to_their_session(session_id):
    transactions.apply(session_id, "op_1", append_items(assistant("hi")))

    applied = transactions.apply("ses_other", "op_1", append_items(assistant("something else")))

    assert applied is True
    assert items_in_log("ses_other") == [assistant("something else")]


def test_it_creates_a_missing_session(db):
    transactions.apply("ses_new", "op_1", append_items(user("hello")))

    assert sessions.get("ses_new").agent == "default"


def test_append_items_keeps_every_item_whatever_its_id(session_id):
    item_log.append(session_id, [user("hello", id="msg_1")])

    applied = transactions.apply(session_id, "op_1", append_items(user("hello again", id="msg_1"), assistant("hi")))

    assert applied is True
    assert items_in_log(session_id) == [user("hello", id="msg_1"), user("hello again", id="msg_1"), assistant("hi")]


def test_replace_suffix_swaps_the_newest_items(session_id):
    item_log.append(session_id, [user("one"), assistant("draft"), function_call("call_1")])

    applied = transactions.apply(
        session_id, "op_1", replace_suffix([assistant("draft"), function_call("call_1")], [assistant("final")])
    )

    assert applied is True
    assert items_in_log(session_id) == [user("one"), assistant("final")]
    assert [item["id"] for item in timeline(session_id)] == ["message:1", "message:4"]


def test_replace_suffix_compares_items_as_json_values(session_id):
    item_log.append(session_id, [{"role": "assistant", "content": "draft", "score": 1}])

    transactions.apply(
        session_id, "op_1", replace_suffix([{"score": 1.0, "content": "draft", "role": "assistant"}], [assistant("x")])
    )

    assert items_in_log(session_id) == [assistant("x")]


def test_replace_suffix_with_an_empty_suffix_appends(session_id):
    item_log.append(session_id, [user("one")])

    transactions.apply(session_id, "op_1", replace_suffix([], [assistant("two")]))

    assert items_in_log(session_id) == [user("one"), assistant("two")]


def test_replace_suffix_undoes_what_the_replaced_items_projected(session_id):
    item_log.append(session_id, [function_call("call_1")])
    item_log.append(session_id, [{"type": "function_call_output", "call_id": "call_1", "output": "wrong"}])

    transactions.apply(
        session_id,
        "op_1",
        replace_suffix([{"type": "function_call_output", "call_id": "call_1", "output": "wrong"}], []),
    )

    assert timeline_item(session_id, "action:call_1")["status"] == "running"


def test_a_suffix_that_no_longer_matches_changes_nothing_and_records_nothing(session_id):
    item_log.append(session_id, [user("one"), assistant("two")])
    before = timeline(session_id)

    with pytest.raises(SuffixMismatch) as error:
        transactions.apply(session_id, "op_1", replace_suffix([assistant("something else")], [assistant("three")]))

    assert error.value.code == "suffix_mismatch"
    assert error.value.status == 409
    assert error.value.message == "Session history suffix no longer matches the transaction precondition."
    assert items_in_log(session_id) == [user("one"), assistant("two")]
    assert timeline(session_id) == before
    assert not Operation.objects.filter(session_id=session_id).exists()


def test_an_operation_that_failed_on_its_suffix_can_be_applied_later(session_id):
    item_log.append(session_id, [user("one")])
    transaction = replace_suffix([assistant("two")], [assistant("three")])
    with pytest.raises(SuffixMismatch):
        transactions.apply(session_id, "op_1", transaction)

    item_log.append(session_id, [assistant("two")])

    assert transactions.apply(session_id, "op_1", transaction) is True
    assert items_in_log(session_id) == [user("one"), assistant("three")]


def test_a_suffix_longer_than_the_history_does_not_match(session_id):
    item_log.append(session_id, [user("one")])

    with pytest.raises(SuffixMismatch):
        transactions.apply(session_id, "op_1", replace_suffix([user("zero"), user("one")], []))

    assert items_in_log(session_id) == [user("one")]


def test_a_suffix_in_another_order_does_not_match(session_id):
    item_log.append(session_id, [user("one"), assistant("two")])

    with pytest.raises(SuffixMismatch):
        transactions.apply(session_id, "op_1", replace_suffix([assistant("two"), user("one")], []))


@pytest.mark.parametrize("operation_id", ["", "   ", None, 7, "op\u0000", "op\ud800"])
def test_it_rejects_an_operation_id_that_is_not_a_non_empty_string(session_id, operation_id):
    with pytest.raises(InvalidInput):
        transactions.apply(session_id, operation_id, append_items(user("hello")))

    assert items_in_log(session_id) == []
    assert not Operation.objects.exists()


def test_it_rejects_an_operation_id_longer_than_200_characters(session_id):
    with pytest.raises(InvalidInput):
        transactions.apply(session_id, "o" * 201, append_items(user("hello")))

    assert items_in_log(session_id) == []


@pytest.mark.parametrize(
    "transaction",
    [
        {"type": "delete_everything", "items": []},
        {"items": []},
        {"type": None},
        ["append_items"],
        None,
    ],
)
def test_it_rejects_an_unknown_transaction_type(session_id, transaction):
    with pytest.raises(InvalidInput):
        transactions.apply(session_id, "op_1", transaction)

    assert not Operation.objects.exists()


@pytest.mark.parametrize(
    "transaction",
    [
        {"type": "append_items"},
        {"type": "append_items", "items": [user("ok"), "not an item"]},
        {"type": "replace_suffix", "expectedSuffix": [], "replacement": None},
        {"type": "replace_suffix", "expectedSuffix": "x", "replacement": []},
    ],
)
def test_it_rejects_malformed_item_lists_before_recording_anything(session_id, transaction):
    with pytest.raises(InvalidInput):
        transactions.apply(session_id, "op_1", transaction)

    assert items_in_log(session_id) == []
    assert transactions.apply(session_id, "op_1", append_items(user("valid"))) is True

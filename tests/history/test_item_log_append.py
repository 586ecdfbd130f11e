import pytest

from historyhub.history import item_log, sessions
from historyhub.lib import jsonvalues
from historyhub.lib.errors import InvalidInput, PayloadTooLarge
from tests.support.items import assistant, user
from tests.support.readers import items_in_log, snapshot, timeline_ids


def test_it_stores_items_verbatim_in_the_order_given(session_id):
    items = [
        user("Where is my order?", id="msg_1"),
        {"type": "reasoning", "id": "rs_1", "summary": []},
        assistant("It ships today.", id="msg_2"),
    ]

    inserted, item_count = item_log.append(session_id, items)

    assert inserted == [True, True, True]
    assert item_count == 3
    assert items_in_log(session_id) == items


def test_it_appends_after_what_the_log_already_holds(session_id):
    item_log.append(session_id, [user("first")])

    inserted, item_count = item_log.append(session_id, [user("second"), user("third")])

    assert inserted == [True, True]
    assert item_count == 3
    assert [item["content"][0]["text"] for item in items_in_log(session_id)] == ["first", "second", "third"]


def test_it_creates_a_missing_session_with_the_agent_given(db):
    item_log.append("ses_new", [user("hello")], agent="researchAgent")

    assert sessions.get("ses_new").agent == "researchAgent"
    assert snapshot("ses_new")["itemCount"] == 1


def test_it_creates_a_missing_session_with_the_default_agent_when_none_is_given(db):
    item_log.append("ses_new", [user("hello")])

    assert sessions.get("ses_new").agent == "default"


@pytest.mark.parametrize("agent", ["a" * 201, 5, "nul\u0000"])
def test_it_rejects_an_invalid_agent_without_creating_the_session(db, agent):
    with pytest.raises(InvalidInput):
        item_log.append("ses_new", [user("hello")], agent=agent)

    assert not sessions.search("default", q="ses_new").exists()


def test_it_keeps_the_agent_of_an_existing_session(session_id):
    item_log.append(session_id, [user("hello")], agent="someoneElse")

    assert sessions.get(session_id).agent == "supportAgent"


def test_every_item_is_kept_whatever_its_id(session_id):
    item_log.append(session_id, [user("original", id="msg_1")])

    inserted, item_count = item_log.append(session_id, [user("rewritten", id="msg_1")])

    assert inserted == [True]
    assert item_count == 2
    assert items_in_log(session_id) == [user("original", id="msg_1"), user("rewritten", id="msg_1")]


def test_the_sdk_placeholder_id_of_chat_completions_models_loses_nothing(session_id):
    replies = [assistant(f"reply {number}", id="__fake_id__") for number in range(3)]

    inserted, item_count = item_log.append(session_id, replies[:2])
    again, item_count = item_log.append(session_id, replies[2:])

    assert (inserted, again, item_count) == ([True, True], [True], 3)
    assert items_in_log(session_id) == replies
    assert len(timeline_ids(session_id)) == 3


def test_with_skip_existing_ids_an_id_the_log_already_holds_is_not_inserted(session_id):
    item_log.append(session_id, [user("original", id="msg_1")])

    inserted, item_count = item_log.append(session_id, [user("rewritten", id="msg_1")], skip_existing_ids=True)

    assert inserted == [False]
    assert item_count == 1
    assert items_in_log(session_id) == [user("original", id="msg_1")]


def test_with_skip_existing_ids_it_reports_each_item_of_a_mixed_batch(session_id):
    item_log.append(session_id, [user("one", id="msg_1")])

    inserted, item_count = item_log.append(
        session_id, [user("again", id="msg_1"), user("two", id="msg_2"), user("no id")], skip_existing_ids=True
    )

    assert inserted == [False, True, True]
    assert item_count == 3


def test_with_skip_existing_ids_a_duplicate_id_inside_one_batch_keeps_the_first(session_id):
    inserted, item_count = item_log.append(
        session_id,
        [user("first", id="msg_1"), user("second", id="msg_1"), user("third", id="msg_1")],
        skip_existing_ids=True,
    )

    assert inserted == [True, False, False]
    assert item_count == 1
    assert items_in_log(session_id) == [user("first", id="msg_1")]


def test_with_skip_existing_ids_items_without_an_id_are_always_inserted(session_id):
    item = {"type": "reasoning", "summary": []}

    item_log.append(session_id, [item, item], skip_existing_ids=True)
    inserted, item_count = item_log.append(session_id, [item], skip_existing_ids=True)

    assert inserted == [True]
    assert item_count == 3
    assert items_in_log(session_id) == [item, item, item]


@pytest.mark.parametrize("not_an_identity", ["", 7, None, ["msg_1"], {"value": "msg_1"}])
def test_an_id_that_is_not_a_non_empty_string_gives_no_identity(session_id, not_an_identity):
    item = user("hello", id=not_an_identity)

    inserted, item_count = item_log.append(session_id, [item, item], skip_existing_ids=True)

    assert inserted == [True, True]
    assert item_count == 2


def test_ids_are_compared_exactly(session_id):
    inserted, _ = item_log.append(
        session_id, [user("a", id="msg"), user("b", id="MSG"), user("c", id="msg ")], skip_existing_ids=True
    )

    assert inserted == [True, True, True]


def test_skipping_looks_only_at_the_logical_history(session_id):
    item_log.append(session_id, [user("before", id="msg_1")])
    item_log.compact(session_id, [{"type": "compaction", "summary": "earlier"}])

    inserted, _ = item_log.append(session_id, [user("after", id="msg_1")], skip_existing_ids=True)

    assert inserted == [True]


def test_positions_only_grow(session_id):
    item_log.append(session_id, [user("one"), assistant("two")])
    item_log.append(session_id, [user("three")])

    assert timeline_ids(session_id) == ["message:1", "message:2", "message:3"]


def test_an_id_not_inserted_still_leaves_later_positions_growing(session_id):
    item_log.append(session_id, [user("one", id="msg_1")])
    item_log.append(session_id, [user("repeat", id="msg_1"), user("two")], skip_existing_ids=True)

    ids = timeline_ids(session_id)
    assert ids[0] == "message:1"
    assert ids[1].startswith("message:")
    assert int(ids[1].removeprefix("message:")) > 1
    assert len(ids) == 2


def test_it_rejects_an_item_that_is_not_an_object_and_stores_nothing_of_the_batch(session_id):
    item_log.append(session_id, [user("kept", id="msg_0")])

    with pytest.raises(InvalidInput) as error:
        item_log.append(session_id, [user("one", id="msg_1"), user("two"), "three", user("four")])

    assert error.value.message == "item at index 2 is not an object"
    assert items_in_log(session_id) == [user("kept", id="msg_0")]
    assert snapshot(session_id)["itemCount"] == 1
    assert timeline_ids(session_id) == ["message:1"]


@pytest.mark.parametrize("not_an_object", [None, 1, "text", [], True])
def test_every_kind_of_non_object_is_rejected_with_its_index(session_id, not_an_object):
    with pytest.raises(InvalidInput) as error:
        item_log.append(session_id, [not_an_object])

    assert error.value.message == "item at index 0 is not an object"
    assert items_in_log(session_id) == []


def test_it_rejects_items_that_are_not_an_array(session_id):
    with pytest.raises(InvalidInput):
        item_log.append(session_id, {"type": "message"})

    assert items_in_log(session_id) == []


def test_it_rejects_an_invalid_session_id_without_creating_a_session(db):
    with pytest.raises(InvalidInput):
        item_log.append("-starts-with-a-dash", [user("hello")])

    assert list(sessions.search("default")) == []


def test_it_rejects_more_items_than_a_request_may_carry(session_id, settings):
    settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST = 3

    with pytest.raises(PayloadTooLarge) as error:
        item_log.append(session_id, [user(str(n)) for n in range(4)])

    assert error.value.status == 413
    assert items_in_log(session_id) == []


def test_it_accepts_exactly_as_many_items_as_a_request_may_carry(session_id, settings):
    settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST = 3

    inserted, _ = item_log.append(session_id, [user(str(n)) for n in range(3)])

    assert inserted == [True, True, True]


def test_it_rejects_an_item_larger_than_the_limit_and_stores_nothing_of_the_batch(session_id, settings):
    small = user("fits")
    large = user("x" * 200)
    settings.HISTORYHUB_MAX_ITEM_BYTES = jsonvalues.size(large) - 1

    with pytest.raises(PayloadTooLarge) as error:
        item_log.append(session_id, [small, large])

    assert "item at index 1" in error.value.message
    assert items_in_log(session_id) == []


def test_an_item_exactly_at_the_size_limit_is_accepted(session_id, settings):
    item = user("é" * 100)
    settings.HISTORYHUB_MAX_ITEM_BYTES = jsonvalues.size(item)

    inserted, _ = item_log.append(session_id, [item])

    assert inserted == [True]
    assert items_in_log(session_id) == [item]


def test_the_size_limit_counts_utf8_bytes_not_characters(session_id, settings):
    item = user("é" * 100)
    settings.HISTORYHUB_MAX_ITEM_BYTES = len(jsonvalues.dumps(item)) + 50

    with pytest.raises(PayloadTooLarge):
        item_log.append(session_id, [item])


def test_it_rejects_an_id_longer_than_200_characters(session_id):
    with pytest.raises(InvalidInput):
        item_log.append(session_id, [user("hello", id="m" * 201)])

    assert items_in_log(session_id) == []


def test_an_id_of_200_characters_is_an_identity(session_id):
    inserted, _ = item_log.append(
        session_id, [user("a", id="m" * 200), user("b", id="m" * 200)], skip_existing_ids=True
    )

    assert inserted == [True, False]


def test_appending_marks_the_session_updated(session_id):
    before = sessions.get(session_id).updated_at

    item_log.append(session_id, [user("hello")])

    assert sessions.get(session_id).updated_at > before

"""Hostile JSON values come back exactly: parsed, and as text that is stable."""

import json

import pytest

from historyhub.approvals import deciding
from historyhub.history import chat_format, client_actions, item_log, sessions, transactions
from historyhub.lib import jsonvalues
from historyhub.lib.errors import InvalidInput
from tests.support.actors import as_approver
from tests.support.readers import items_in_log, shown, snapshot, timeline, timeline_item


def nested(depth):
    value = {"bottom": [1, "two", None]}
    for level in range(depth):
        value = {f"level{level}": value} if level % 2 else [value]
    return value


HOSTILE = {
    "emoji": "👩🏽‍💻 🚀",
    "rtl": "مرحبا بالعالم שלום",
    "combining": "e\u0301 a\u0308\u0301",
    "nul": "before\u0000after",
    "nul\u0000key": "key with a NUL",
    "lone_high": "\ud800",
    "lone_low": "x\udfffy",
    "controls": "\t\n\r\b\f\u001f\u007f",
    "quotes": "\"'\\/",
    "big": 2**64 + 1,
    "very_negative": -(2**70),
    "max_safe_plus_one": 2**53 + 1,
    "floats": [0.1, -2.5e-300, 1.7976931348623157e308, 5e-324, 123456789.123456789],
    "negative_zero": -0.0,
    "empty_object": {},
    "empty_array": [],
    "empty_string": "",
    "booleans": [True, False, None],
    # As deep as an item may nest (HISTORYHUB_MAX_JSON_DEPTH, 100) with the item around it.
    "deep": nested(97),
    "z_last_but_written_first": 1,
    "a_first_but_written_last": 2,
}


def same(a, b):
    """Equal as JSON text, so key order, integer-ness and the sign of zero count too."""
    return json.dumps(a) == json.dumps(b)


def assert_text_round_trips(text, value):
    assert same(json.loads(text), value)
    assert jsonvalues.dumps(json.loads(text)) == text


def test_a_hostile_item_comes_back_exactly(session_id):
    item = {"id": "hostile_1", "type": "custom", **HOSTILE}

    item_log.append(session_id, [item])

    [text] = item_log.iter_item_texts(session_id)
    assert_text_round_trips(text, item)


def test_key_order_is_kept(session_id):
    item = {"z": 1, "a": 2, "m": {"y": 1, "b": 2}}

    item_log.append(session_id, [item])

    [text] = item_log.iter_item_texts(session_id)
    assert text == '{"z":1,"a":2,"m":{"y":1,"b":2}}'


@pytest.mark.parametrize("key", sorted(HOSTILE))
def test_each_hostile_value_comes_back_exactly_on_its_own(session_id, key):
    item = {"type": "custom", key: HOSTILE[key]}

    item_log.append(session_id, [item])

    [text] = item_log.iter_item_texts(session_id)
    assert_text_round_trips(text, item)


def test_a_hostile_item_is_the_popped_item(session_id):
    item = {"type": "custom", **HOSTILE}
    item_log.append(session_id, [item])

    assert same(item_log.pop(session_id), item)


def test_hostile_text_in_a_message_reaches_the_timeline_exactly(session_id):
    text = "NUL\u0000 lone\ud800 emoji👩🏽‍💻 rtl שלום e\u0301"

    item_log.append(session_id, [{"role": "user", "content": text}, {"role": "assistant", "content": text}])

    assert [item["content"] for item in timeline(session_id)] == [[{"type": "text", "text": text}]] * 2
    assert items_in_log(session_id) == [{"role": "user", "content": text}, {"role": "assistant", "content": text}]


def test_unicode_ids_are_exact_identities(session_id):
    ids = ["emoji👩🏽‍💻", "e\u0301", "\u00e9", "rtl שלום", "\u0001control"]

    items = [{"id": value, "type": "custom"} for value in ids]
    inserted, _ = item_log.append(session_id, items, skip_existing_ids=True)
    again, item_count = item_log.append(session_id, items, skip_existing_ids=True)

    assert inserted == [True] * 5
    assert again == [False] * 5
    assert item_count == 5
    assert [item["id"] for item in items_in_log(session_id)] == ids


@pytest.mark.parametrize("item_id", ["nul\u0000id", "lone\ud800id", "\udfff"])
def test_an_item_id_with_a_nul_or_an_unpaired_surrogate_is_rejected(session_id, item_id):
    with pytest.raises(InvalidInput) as error:
        item_log.append(session_id, [{"type": "custom", "id": "fine"}, {"type": "custom", "id": item_id}])

    assert error.value.message.startswith("item at index 1 has an id")
    assert items_in_log(session_id) == []


def test_hostile_call_ids_and_names_in_items_are_projected(session_id):
    call = {"type": "function_call", "call_id": "call\u0000\ud800", "name": "tool\u0000\ud800", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "call\u0000\ud800", "output": "done\u0000"}
    request = {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "name": "approve\u0000\ud800_it",
        "arguments": "{}",
        "server_label": "label\u0000\ud800",
    }

    item_log.append(session_id, [call, output, request])

    assert same(items_in_log(session_id), [call, output, request])
    [action, approval] = timeline(session_id)
    assert (action["type"], action["name"], action["status"], action["output"]) == (
        "action",
        "tool\u0000\ud800",
        "completed",
        "done\u0000",
    )
    assert approval["summary"] == "approve\ufffd\ufffd it is waiting for the client."
    assert client_actions.get(session_id, "mcpr_1").description == "label\ufffd\ufffd"


def test_hostile_client_action_values_come_back_exactly(session_id):
    arguments = {"nul\u0000key": HOSTILE["nul"], "lone": HOSTILE["lone_high"], "big": HOSTILE["big"]}
    client_actions.open_action(
        session_id, call_id="call_1", name="confirm", arguments=arguments, description="émoji 👩🏽‍💻"
    )

    deciding.decide(
        session_id,
        "call_1",
        decision="approve",
        comment="שלום",
        arguments={"deep": HOSTILE["deep"]},
        decider=as_approver(),
    )

    answer = shown(client_actions.get(session_id, "call_1"))
    assert same(answer["arguments"], arguments)
    assert same(answer["approvedArguments"], {"deep": HOSTILE["deep"]})
    assert (answer["description"], answer["comment"]) == ("émoji 👩🏽‍💻", "שלום")


@pytest.mark.parametrize("field", ["call_id", "name", "description"])
@pytest.mark.parametrize("unstorable", ["a\u0000b", "a\ud800b"])
def test_a_client_action_string_with_a_nul_or_an_unpaired_surrogate_is_rejected(session_id, field, unstorable):
    fields = {"call_id": "call_1", "name": "confirm", "description": "", field: unstorable}

    with pytest.raises(InvalidInput):
        client_actions.open_action(session_id, arguments={}, **fields)

    assert list(client_actions.listing("default", session_id=session_id)) == []


def test_a_comment_with_a_nul_is_rejected(session_id):
    client_actions.open_action(session_id, call_id="call_1", name="confirm", arguments={})

    with pytest.raises(InvalidInput):
        deciding.decide(session_id, "call_1", decision="reject", comment="no\u0000", decider=as_approver())

    assert client_actions.get(session_id, "call_1").status == "waiting"


def test_a_hostile_client_action_result_comes_back_exactly(session_id):
    client_actions.open_action(session_id, call_id="call_1", name="confirm", arguments={})

    client_actions.supply_result(session_id, "call_1", output=HOSTILE, resolved_by="app")

    assert same(shown(client_actions.get(session_id, "call_1"))["output"], HOSTILE)


def test_hostile_metadata_comes_back_exactly_and_stays_searchable(db):
    metadata = {"nul\u0000key": "v\u0000", "lone": "\ud800", "big": 2**64 + 1, "rtl": "שלום", "f": -0.0}

    sessions.ensure(agent="supportAgent", session_id="ses_1", name="Ana 👩🏽‍💻", metadata=metadata)

    state = snapshot("ses_1")
    assert state["name"] == "Ana 👩🏽‍💻"
    assert same(state["metadata"], metadata)
    assert [session.id for session in sessions.search("default", q="שלום")] == ["ses_1"]


@pytest.mark.parametrize("value", ["a\u0000b", "a\ud800b"])
def test_session_strings_with_a_nul_or_an_unpaired_surrogate_are_rejected(db, value):
    with pytest.raises(InvalidInput):
        sessions.ensure(agent="supportAgent", session_id="ses_1", name=value)
    with pytest.raises(InvalidInput):
        sessions.ensure(agent=value, session_id="ses_1")
    sessions.ensure(agent="supportAgent", session_id="ses_1")
    with pytest.raises(InvalidInput):
        sessions.update("ses_1", name=value)

    assert snapshot("ses_1")["name"] is None


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_metadata_numbers_json_cannot_carry_are_rejected(db, value):
    with pytest.raises(InvalidInput):
        sessions.ensure(agent="supportAgent", session_id="ses_1", metadata={"score": value})

    assert not sessions.search("default", q="ses_1").exists()


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_an_item_holding_a_number_json_cannot_carry_is_rejected_for_what_it_is(session_id, value):
    with pytest.raises(InvalidInput) as error:
        item_log.append(session_id, [{"type": "custom", "score": value}])

    assert error.value.message == "item at index 0 holds a number JSON cannot carry (NaN, Infinity or too many digits)"


def depth(value):
    return 1 + max(
        (
            depth(child)
            for child in (value.values() if isinstance(value, dict) else value)
            if isinstance(child, (dict, list))
        ),
        default=0,
    )


def test_the_hostile_item_is_exactly_as_deep_as_an_item_may_nest():
    assert depth({"deep": HOSTILE["deep"]}) == 100


@pytest.mark.parametrize("levels", [98, 100_000])
def test_an_item_nested_beyond_the_depth_limit_is_rejected_for_what_it_is(session_id, levels):
    with pytest.raises(InvalidInput) as error:
        item_log.append(session_id, [{"type": "custom", "deep": nested(levels)}])

    assert error.value.message == "item at index 0 is nested more than 100 levels deep"
    assert items_in_log(session_id) == []


@pytest.mark.parametrize("arguments", ['{"x": NaN}', '{"x": Infinity}', "[" * 100_000 + "]" * 100_000])
def test_call_arguments_that_are_not_json_are_kept_as_input(session_id, arguments):
    item_log.append(session_id, [{"type": "function_call", "call_id": "call_1", "name": "f", "arguments": arguments}])

    assert timeline_item(session_id, "action:call_1")["arguments"] == {"input": arguments}


def test_a_hostile_transaction_is_recognised_when_repeated(session_id):
    transaction = {"type": "append_items", "items": [{"type": "custom", **HOSTILE}]}
    assert transactions.apply(session_id, "op_hostile", transaction) is True

    reordered = {"items": [dict(reversed(list(transaction["items"][0].items())))], "type": "append_items"}
    assert transactions.apply(session_id, "op_hostile", reordered) is False

    assert same(items_in_log(session_id), transaction["items"])


def test_a_hostile_suffix_matches_itself(session_id):
    item = {"type": "custom", **HOSTILE}
    item_log.append(session_id, [item])

    transactions.apply(
        session_id,
        "op_1",
        {"type": "replace_suffix", "expectedSuffix": [item], "replacement": [{"type": "custom", "n": 1}]},
    )

    assert items_in_log(session_id) == [{"type": "custom", "n": 1}]


def test_a_hostile_compaction_equal_to_the_history_changes_nothing(session_id):
    items = [{"type": "compaction", **HOSTILE}]
    item_log.compact(session_id, items)

    changed, _ = item_log.compact(session_id, items)

    assert changed is False


def test_hostile_chat_messages_round_trip_through_export(session_id):
    messages = [
        {"role": "user", "content": "NUL\u0000 lone\ud800 👩🏽‍💻"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call\u0000",
                    "type": "function",
                    "function": {"name": "f\ud800", "arguments": '{"a": "\\u0000"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call\u0000", "name": "f\ud800", "content": "\u0000"},
    ]

    chat_format.import_messages(session_id, messages)

    assert chat_format.export(session_id) == messages


def test_message_search_finds_sessions_by_text_around_hostile_characters(session_id):
    item_log.append(session_id, [{"role": "user", "content": "parcel\u0000\ud800 tracking"}])

    assert [session.id for session in sessions.search("default", q="tracking")] == [session_id]


@pytest.mark.parametrize("batch", [1, 60], ids=["a turn", "a large batch"])
def test_hostile_items_come_back_exactly_whichever_way_the_batch_is_written(session_id, batch):
    # PostgreSQL takes a small batch as one INSERT and a large one through COPY (historyhub.lib.bulk).
    items = [{"id": f"hostile_{n}", "type": "custom", "n": n, **HOSTILE} for n in range(batch)]

    item_log.append(session_id, items)

    texts = list(item_log.iter_item_texts(session_id))
    assert len(texts) == batch
    for text, item in zip(texts, items, strict=True):
        assert_text_round_trips(text, item)

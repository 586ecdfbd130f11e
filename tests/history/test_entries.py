from datetime import UTC, datetime, timedelta

import pytest

from historyhub.history import item_log, sessions, wire_entries
from historyhub.lib.errors import InvalidInput
from tests.support.clock import ServerClock
from tests.support.items import assistant, function_call, function_output, user
from tests.support.readers import items_in_log


def received_ms(clock):
    """The clock's bounds in epoch milliseconds, counted exactly."""
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return (clock.before - epoch) // timedelta(milliseconds=1), (clock.after - epoch) // timedelta(milliseconds=1)


def test_a_user_message_and_its_replies_are_a_turn(session_id):
    item_log.append(
        session_id,
        [
            user("Show sales", id="msg_1", timestamp=1790000000000),
            assistant("Here they are.", id="msg_2"),
        ],
    )

    assert wire_entries.wire_entries(session_id) == [
        {
            "kind": "turn",
            "id": "msg_1",
            "sessionId": session_id,
            "timestamp": 1790000000000,
            "userIntent": "Show sales",
            "assistantMessage": "Here they are.",
        }
    ]


def test_a_user_message_without_an_id_is_named_by_its_position(session_id):
    item_log.append(session_id, [{"type": "reasoning"}, {"role": "user", "content": "hi"}])

    assert [entry["id"] for entry in wire_entries.wire_entries(session_id)] == ["message:2"]


def test_the_user_intent_joins_text_parts_with_one_space(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Show sales"},
                    {"type": "input_image", "image_url": "https://cdn.example.com/chart.png"},
                    {"type": "input_text", "text": "for March"},
                ],
            }
        ],
    )

    assert wire_entries.wire_entries(session_id)[0]["userIntent"] == "Show sales for March"


def test_a_user_message_without_text_has_an_empty_intent(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_image", "image_url": "https://cdn.example.com/chart.png"},
                ],
            }
        ],
    )

    assert wire_entries.wire_entries(session_id)[0]["userIntent"] == ""


def test_the_assistant_message_joins_the_replies_with_a_blank_line(session_id):
    item_log.append(
        session_id,
        [
            user("Weather?"),
            assistant("Let me check."),
            function_call("call_1"),
            function_output("call_1"),
            {"type": "reasoning", "summary": []},
            assistant("It is 22C and sunny."),
            {"role": "assistant", "content": "Anything else?"},
        ],
    )

    assert wire_entries.wire_entries(session_id)[0]["assistantMessage"] == (
        "Let me check.\n\nIt is 22C and sunny.\n\nAnything else?"
    )


def test_a_turn_without_a_reply_yet_has_an_empty_assistant_message(session_id):
    item_log.append(session_id, [user("Hello?")])

    assert wire_entries.wire_entries(session_id)[0]["assistantMessage"] == ""


def test_each_user_message_opens_its_own_turn(session_id):
    item_log.append(
        session_id,
        [
            user("one", id="u1"),
            assistant("reply one"),
            user("two", id="u2"),
            assistant("reply two"),
        ],
    )

    assert [
        (entry["id"], entry["userIntent"], entry["assistantMessage"]) for entry in wire_entries.wire_entries(session_id)
    ] == [
        ("u1", "one", "reply one"),
        ("u2", "two", "reply two"),
    ]


def test_assistant_messages_before_the_first_user_message_are_injections(session_id):
    item_log.append(
        session_id,
        [
            assistant("Welcome! Ask me anything.", id="greeting", timestamp=1790000000000),
            user("Hi"),
        ],
    )

    assert wire_entries.wire_entries(session_id)[0] == {
        "kind": "injection",
        "id": "greeting",
        "sessionId": session_id,
        "timestamp": 1790000000000,
        "content": "Welcome! Ask me anything.",
    }
    assert wire_entries.wire_entries(session_id)[1]["kind"] == "turn"


def test_an_injection_stores_an_assistant_message_and_returns_its_entry(session_id):
    with ServerClock() as clock:
        entry = wire_entries.inject(session_id, "The report is ready.", entry_id="inj_1")

    low, high = received_ms(clock)
    assert low <= entry.pop("timestamp") <= high
    assert entry == {"kind": "injection", "id": "inj_1", "sessionId": session_id, "content": "The report is ready."}
    [stored] = items_in_log(session_id)
    assert (stored["id"], stored["role"]) == ("inj_1", "assistant")


def test_an_injection_without_an_id_is_named_by_its_position(session_id):
    item_log.append(session_id, [user("one")])

    entry = wire_entries.inject(session_id, "Heads up.")

    assert entry["id"] == "message:2"
    assert wire_entries.wire_entries(session_id)[1] == entry


def test_an_injection_belongs_to_no_turn(session_id):
    item_log.append(session_id, [user("Build the report", id="u1"), assistant("Working on it.")])
    wire_entries.inject(session_id, "Note: data is from yesterday.", entry_id="inj_1")
    item_log.append(session_id, [assistant("Done.")])

    turn, injection = wire_entries.wire_entries(session_id)
    assert (turn["kind"], turn["assistantMessage"]) == ("turn", "Working on it.\n\nDone.")
    assert (injection["kind"], injection["content"]) == ("injection", "Note: data is from yesterday.")


def test_injecting_the_same_id_twice_keeps_both(session_id):
    wire_entries.inject(session_id, "Heads up.", entry_id="inj_1")

    wire_entries.inject(session_id, "Heads up again.", entry_id="inj_1")

    assert [entry["content"] for entry in wire_entries.wire_entries(session_id)] == ["Heads up.", "Heads up again."]
    assert len(items_in_log(session_id)) == 2


def test_an_injection_may_take_an_id_another_item_has(session_id):
    item_log.append(session_id, [user("hello", id="msg_1")])

    entry = wire_entries.inject(session_id, "Heads up.", entry_id="msg_1")

    assert (entry["kind"], entry["id"]) == ("injection", "msg_1")
    assert wire_entries.find_response(session_id, "msg_1") == {"result": "kind_mismatch", "kind": "injection"}


def test_an_injection_into_a_missing_session_creates_it(db):
    wire_entries.inject("ses_new", "Hello from the app.")

    assert sessions.get("ses_new").agent == "default"


@pytest.mark.parametrize("entry_id", ["", "i" * 201, "inj\u0000", 5])
def test_an_injection_id_must_be_a_storable_string_of_1_to_200_characters(session_id, entry_id):
    with pytest.raises(InvalidInput):
        wire_entries.inject(session_id, "Heads up.", entry_id=entry_id)

    assert items_in_log(session_id) == []


@pytest.mark.parametrize("content", [None, 5, ["text"], {"text": "x"}])
def test_injection_content_must_be_a_string(session_id, content):
    with pytest.raises(InvalidInput):
        wire_entries.inject(session_id, content)

    assert items_in_log(session_id) == []


@pytest.mark.parametrize(
    "timestamp, expected",
    [
        (1790000000123, 1790000000123),
        (1790000000123.0, 1790000000123),
        ("2026-09-28T12:00:04.123Z", 1790596804123),
        ("2004-07-03T10:37:20.748Z", 1088851040748),
    ],
)
def test_the_timestamp_is_the_items_own(session_id, timestamp, expected):
    item_log.append(session_id, [user("hi", timestamp=timestamp)])

    assert wire_entries.wire_entries(session_id)[0]["timestamp"] == expected


def test_a_created_at_is_the_items_own_timestamp_too(session_id):
    item_log.append(session_id, [user("hi", createdAt="2026-09-28T12:00:04Z")])

    assert wire_entries.wire_entries(session_id)[0]["timestamp"] == 1790596804000


@pytest.mark.parametrize("timestamp", [None, "soon", True, "2026-09-28T12:00:04"])
def test_the_timestamp_is_when_it_was_received_otherwise(session_id, timestamp):
    with ServerClock() as clock:
        item_log.append(session_id, [user("hi", timestamp=timestamp)])

    low, high = received_ms(clock)
    assert low <= wire_entries.wire_entries(session_id)[0]["timestamp"] <= high


def test_items_that_are_not_messages_give_no_entries(session_id):
    item_log.append(
        session_id,
        [
            {"role": "system", "content": "Be brief."},
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "x"}]},
            function_call("call_1"),
            {"type": "skill", "id": "s1"},
        ],
    )

    assert wire_entries.wire_entries(session_id) == []


def test_an_unknown_session_has_no_entries(db):
    assert wire_entries.wire_entries("ses_unknown") == []

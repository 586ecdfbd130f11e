from historyhub.history import item_log, wire_entries
from tests.support.items import assistant, function_call, function_output, user

REASONING = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look it up."}]}


def test_a_turn_with_a_response_is_a_hit_with_its_items_verbatim(session_id):
    response = [
        REASONING,
        function_call("call_1", id="fc_1"),
        function_output("call_1"),
        assistant("22C and sunny.", id="msg_2", extra={"kept": ["as", "is"]}),
    ]
    item_log.append(
        session_id,
        [
            user("Weather in Paris?", id="msg_1", timestamp=1790000000000),
            *response,
            user("Thanks", id="msg_3"),
            assistant("You're welcome."),
        ],
    )

    assert wire_entries.find_response(session_id, "msg_1") == {
        "result": "hit",
        "entry": {
            "kind": "turn",
            "id": "msg_1",
            "sessionId": session_id,
            "timestamp": 1790000000000,
            "userIntent": "Weather in Paris?",
            "assistantMessage": "22C and sunny.",
        },
        "items": response,
    }


def test_the_entry_of_a_hit_is_the_turn_entries_lists(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), assistant("a"), assistant("b"), user("two")])

    assert wire_entries.find_response(session_id, "msg_1")["entry"] == wire_entries.wire_entries(session_id)[0]


def test_the_last_turn_with_a_response_is_a_hit(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), assistant("a"), user("two", id="msg_2"), assistant("b")])

    hit = wire_entries.find_response(session_id, "msg_2")

    assert hit["result"] == "hit"
    assert hit["items"] == [assistant("b")]


def test_a_user_message_without_an_id_is_found_by_its_position(session_id):
    item_log.append(session_id, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])

    hit = wire_entries.find_response(session_id, "message:1")

    assert hit["result"] == "hit"
    assert hit["entry"]["id"] == "message:1"
    assert hit["items"] == [{"role": "assistant", "content": "hello"}]


def test_an_unknown_id_is_a_miss(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), assistant("a")])

    assert wire_entries.find_response(session_id, "msg_404") == {"result": "miss"}
    assert wire_entries.find_response(session_id, "message:99") == {"result": "miss"}


def test_an_unknown_session_is_a_miss(db):
    assert wire_entries.find_response("ses_unknown", "msg_1") == {"result": "miss"}


def test_a_turn_with_no_response_yet_is_a_miss(session_id):
    item_log.append(session_id, [user("one", id="msg_1")])

    assert wire_entries.find_response(session_id, "msg_1") == {"result": "miss"}


def test_a_turn_followed_directly_by_the_next_user_message_is_a_miss(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), user("two", id="msg_2"), assistant("b")])

    assert wire_entries.find_response(session_id, "msg_1") == {"result": "miss"}


def test_an_injection_is_not_part_of_a_response(session_id):
    item_log.append(session_id, [user("one", id="msg_1")])
    wire_entries.inject(session_id, "Note.", entry_id="inj_1")

    assert wire_entries.find_response(session_id, "msg_1") == {"result": "miss"}

    item_log.append(session_id, [assistant("Answer.")])
    assert wire_entries.find_response(session_id, "msg_1")["items"] == [assistant("Answer.")]


def test_an_injection_id_is_a_kind_mismatch(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), assistant("a")])
    wire_entries.inject(session_id, "Note.", entry_id="inj_1")

    assert wire_entries.find_response(session_id, "inj_1") == {"result": "kind_mismatch", "kind": "injection"}


def test_an_assistant_message_before_the_first_user_message_is_an_injection(session_id):
    item_log.append(session_id, [assistant("Welcome!", id="greeting"), user("hi", id="msg_1")])

    assert wire_entries.find_response(session_id, "greeting") == {"result": "kind_mismatch", "kind": "injection"}


def test_an_assistant_reply_is_a_kind_mismatch_of_kind_message(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), assistant("a", id="msg_2")])

    assert wire_entries.find_response(session_id, "msg_2") == {"result": "kind_mismatch", "kind": "message"}


def test_another_item_is_a_kind_mismatch_of_its_type(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), REASONING, function_call("call_1", id="fc_1")])

    assert wire_entries.find_response(session_id, "fc_1") == {"result": "kind_mismatch", "kind": "function_call"}
    assert wire_entries.find_response(session_id, "rs_1") == {"result": "kind_mismatch", "kind": "reasoning"}


def test_a_system_message_is_a_kind_mismatch(session_id):
    item_log.append(session_id, [{"type": "message", "id": "sys_1", "role": "system", "content": "Be brief."}])

    assert wire_entries.find_response(session_id, "sys_1") == {"result": "kind_mismatch", "kind": "message"}

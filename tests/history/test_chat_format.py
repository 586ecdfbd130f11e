import pytest

from historyhub.history import chat_format, item_log, sessions
from historyhub.lib.errors import InvalidHistory
from tests.support.items import assistant, function_call, function_output, user
from tests.support.readers import items_in_log, timeline, timeline_item

TOOL_CONVERSATION = [
    {"role": "user", "content": "What's the weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "getWeather", "arguments": '{"city":"Paris"}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "name": "getWeather", "content": "Weather in Paris: 22°C, Sunny"},
    {"role": "assistant", "content": "It is 22°C and sunny in Paris."},
]


def import_fails(session_id, messages):
    with pytest.raises(InvalidHistory) as error:
        chat_format.import_messages(session_id, messages)
    assert error.value.code == "invalid_history"
    return error.value.message


@pytest.mark.parametrize("messages", [{"role": "user", "content": "hi"}, "hi", None, 3])
def test_messages_that_are_not_an_array_are_rejected(session_id, messages):
    assert import_fails(session_id, messages) == "expected an array of messages"


def test_a_message_that_is_not_an_object_is_rejected_with_its_index(session_id):
    messages = [{"role": "user", "content": "hi"}, ["assistant", "hello"]]

    assert import_fails(session_id, messages) == "message at index 1 is not an object"


def test_an_unknown_role_is_rejected_with_its_index_and_name(session_id):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}, {"role": "robot"}]

    assert import_fails(session_id, messages) == 'message at index 2 has unknown role "robot"'


@pytest.mark.parametrize("message", [{"content": "no role"}, {"role": None}, {"role": 7}])
def test_a_missing_or_non_string_role_is_an_unknown_role(session_id, message):
    assert import_fails(session_id, [message]).startswith("message at index 0 has unknown role ")


def test_a_tool_message_matching_no_earlier_tool_call_is_orphaned(session_id):
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": "x"},
    ]

    assert import_fails(session_id, messages) == 'orphaned tool_call_id "call_2"'


def test_a_tool_message_before_its_tool_call_is_orphaned(session_id):
    messages = [
        {"role": "tool", "tool_call_id": "call_1", "content": "x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            ],
        },
    ]

    assert import_fails(session_id, messages) == 'orphaned tool_call_id "call_1"'


def test_tool_calls_of_a_user_message_do_not_pair_a_tool_message(session_id):
    messages = [
        {"role": "user", "content": "hi", "tool_calls": [{"id": "call_1", "function": {"name": "f"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "x"},
    ]

    assert import_fails(session_id, messages) == 'orphaned tool_call_id "call_1"'


@pytest.mark.parametrize("tool_call_id", [None, 5, ["call_1"], {"id": "call_1"}])
def test_a_tool_message_with_a_tool_call_id_that_is_not_a_string_is_orphaned(session_id, tool_call_id):
    messages = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": tool_call_id, "content": "x"},
    ]

    assert import_fails(session_id, messages).startswith("orphaned tool_call_id ")


def test_a_system_message_after_index_0_is_rejected(session_id):
    messages = [{"role": "user", "content": "hi"}, {"role": "system", "content": "Be brief."}]

    assert import_fails(session_id, messages) == "unexpected system message at index 1"


def test_indexes_count_in_the_array_as_sent_even_after_a_leading_system_message(session_id):
    system = {"role": "system", "content": "You are helpful."}
    hello = {"role": "user", "content": "hi"}

    assert import_fails(session_id, [system, hello, 5]) == "message at index 2 is not an object"
    assert import_fails(session_id, [system, hello, {"role": "bot"}]) == 'message at index 2 has unknown role "bot"'
    assert import_fails(session_id, [system, hello, system]) == "unexpected system message at index 2"


def test_the_first_error_in_the_array_is_the_one_reported(session_id):
    messages = [{"role": "user", "content": "hi"}, {"role": "wizard"}, "not an object"]

    assert import_fails(session_id, messages) == 'message at index 1 has unknown role "wizard"'


def test_a_failed_import_leaves_the_history_unchanged(session_id):
    item_log.append(session_id, [user("keep me", id="msg_1"), function_call("call_1")])
    before_items, before_timeline = items_in_log(session_id), timeline(session_id)

    import_fails(session_id, [{"role": "user", "content": "replacement"}, {"role": "tool", "tool_call_id": "x"}])

    assert items_in_log(session_id) == before_items
    assert timeline(session_id) == before_timeline


def test_a_leading_system_message_is_accepted_and_dropped(session_id):
    chat_format.import_messages(session_id, [{"role": "system", "content": "You are helpful."}, *TOOL_CONVERSATION])

    assert items_in_log(session_id) == TOOL_CONVERSATION
    assert chat_format.export(session_id) == TOOL_CONVERSATION


def test_an_import_replaces_the_logical_history(session_id):
    item_log.append(session_id, [user("old"), assistant("old reply")])

    chat_format.import_messages(session_id, [{"role": "user", "content": "new"}])

    assert items_in_log(session_id) == [{"role": "user", "content": "new"}]


def test_an_empty_array_empties_the_history(session_id):
    item_log.append(session_id, [user("old")])

    chat_format.import_messages(session_id, [])

    assert items_in_log(session_id) == []


def test_an_import_into_a_missing_session_creates_it_with_the_agent_given(db):
    chat_format.import_messages("ses_new", [{"role": "user", "content": "hi"}], agent="praisonAgent")

    assert sessions.get("ses_new").agent == "praisonAgent"


def test_imported_tool_calls_are_projected_as_actions(session_id):
    chat_format.import_messages(session_id, TOOL_CONVERSATION)

    action = timeline_item(session_id, "action:call_1")
    assert (action["name"], action["arguments"], action["status"]) == ("getWeather", {"city": "Paris"}, "completed")


def test_tool_calls_round_trip_through_export(session_id):
    conversation = [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "getWeather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "getWeather", "arguments": '{"city":"Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "name": "getWeather", "content": "22°C"},
        {"role": "tool", "tool_call_id": "call_b", "name": "getWeather", "content": "25°C"},
        {"role": "assistant", "content": "Paris 22°C, Rome 25°C."},
        {"role": "user", "content": "Is that warm?"},
    ]
    chat_format.import_messages(session_id, conversation)

    assert chat_format.export(session_id) == conversation


def test_export_gives_content_null_to_a_message_stored_without_content(session_id):
    item_log.append(
        session_id,
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                ],
            }
        ],
    )

    assert chat_format.export(session_id) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            ],
        }
    ]


def test_export_converts_responses_items_to_chat_messages(session_id):
    item_log.append(
        session_id,
        [
            {"type": "message", "role": "system", "content": [{"type": "input_text", "text": "Be brief."}]},
            user("Weather in Paris?"),
            {"type": "reasoning", "id": "rs_1", "summary": []},
            function_call("call_1", arguments='{"city": "Paris"}'),
            function_output("call_1", output="22C"),
            assistant("22C and sunny."),
        ],
    )

    assert chat_format.export(session_id) == [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "22C"},
        {"role": "assistant", "content": "22C and sunny."},
    ]


def test_export_keeps_parallel_function_calls_in_one_assistant_message(session_id):
    item_log.append(
        session_id,
        [
            function_call("call_a", arguments="{}"),
            function_call("call_b", name="get_time", arguments="{}"),
            function_output("call_a", output="22C"),
            function_output("call_b", output="noon"),
        ],
    )

    assert chat_format.export(session_id) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
                {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "name": "get_weather", "content": "22C"},
        {"role": "tool", "tool_call_id": "call_b", "name": "get_time", "content": "noon"},
    ]


def test_export_turns_agents_js_results_and_structured_outputs_into_text(session_id):
    item_log.append(
        session_id,
        [
            {"type": "function_call", "callId": "call_js", "name": "lookup", "arguments": {"id": 7}},
            {"type": "function_call_result", "callId": "call_js", "output": {"type": "text", "text": "shipped"}},
            function_call("call_2", name="stats", arguments="{}"),
            function_output("call_2", output={"count": 3}),
        ],
    )

    exported = chat_format.export(session_id)

    assert exported[0]["tool_calls"][0]["function"] == {"name": "lookup", "arguments": '{"id": 7}'}
    assert exported[1] == {"role": "tool", "tool_call_id": "call_js", "name": "lookup", "content": "shipped"}
    assert exported[3] == {"role": "tool", "tool_call_id": "call_2", "name": "stats", "content": '{"count": 3}'}


def test_export_has_no_system_message(session_id):
    item_log.append(session_id, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}])

    assert chat_format.export(session_id) == [{"role": "user", "content": "hi"}]


def test_export_of_an_unknown_session_is_empty(db):
    assert chat_format.export("ses_unknown") == []


def test_exported_messages_are_accepted_by_import(session_id):
    item_log.append(
        session_id,
        [
            user("Weather?"),
            function_call("call_1"),
            function_output("call_1"),
            assistant("Sunny."),
        ],
    )
    exported = chat_format.export(session_id)

    chat_format.import_messages("ses_copy", exported)

    assert chat_format.export("ses_copy") == exported

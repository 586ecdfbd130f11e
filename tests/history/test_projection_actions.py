import pytest

from historyhub.history import item_log
from tests.support.items import function_call, function_output
from tests.support.readers import timeline, timeline_ids, timeline_item


def test_a_function_call_is_a_running_action(session_id):
    item_log.append(
        session_id,
        [
            function_call(
                "call_1",
                id="fc_1",
                arguments='{"city": "Paris", "days": 3}',
                createdAt="2026-09-28T12:00:00Z",
            )
        ],
    )

    assert timeline(session_id) == [
        {
            "id": "action:call_1",
            "type": "action",
            "createdAt": "2026-09-28T12:00:00Z",
            "name": "get_weather",
            "callId": "call_1",
            "status": "running",
            "arguments": {"city": "Paris", "days": 3},
        }
    ]


def test_its_output_completes_it_with_the_time_between_them(session_id):
    item_log.append(session_id, [function_call("call_1", createdAt="2026-09-28T12:00:00Z")])
    item_log.append(session_id, [function_output("call_1", createdAt="2026-09-28T12:00:01.001Z")])

    action = timeline_item(session_id, "action:call_1")
    assert action["status"] == "completed"
    assert action["durationMs"] == 1001
    assert action["output"] == "22C and sunny"
    assert action["createdAt"] == "2026-09-28T12:00:00Z"
    assert timeline_ids(session_id) == ["action:call_1"]


@pytest.mark.parametrize(
    "seconds, milliseconds",
    [
        ("00.290", 290),
        ("02.345", 2345),
        ("09.999", 9999),
        ("00.001", 1),
        ("00", 0),
    ],
)
def test_the_duration_is_exact_to_the_millisecond(session_id, seconds, milliseconds):
    item_log.append(
        session_id,
        [
            function_call("call_1", createdAt="2026-09-28T12:00:00Z"),
            function_output("call_1", createdAt=f"2026-09-28T12:00:{seconds}Z"),
        ],
    )

    assert timeline_item(session_id, "action:call_1")["durationMs"] == milliseconds


def test_an_output_older_than_its_call_gives_no_negative_duration(session_id):
    item_log.append(
        session_id,
        [
            function_call("call_1", createdAt="2026-09-28T12:00:05Z"),
            function_output("call_1", createdAt="2026-09-28T12:00:00Z"),
        ],
    )

    assert timeline_item(session_id, "action:call_1")["durationMs"] == 0


@pytest.mark.parametrize(
    "error_fields",
    [
        {"output": {"error": "upstream timed out"}},
        {"output": {"type": "error", "message": "no such city"}},
        {"status": "incomplete"},
        {"status": "failed"},
        {"isError": True},
        {"is_error": True},
    ],
)
def test_an_output_that_says_it_is_an_error_fails_the_action(session_id, error_fields):
    item_log.append(session_id, [function_call("call_1"), function_output("call_1", **error_fields)])

    assert timeline_item(session_id, "action:call_1")["status"] == "failed"


def test_an_ordinary_output_object_is_no_error(session_id):
    item_log.append(
        session_id,
        [
            function_call("call_1"),
            function_output("call_1", output={"temperature": 22}, status="completed"),
        ],
    )

    assert timeline_item(session_id, "action:call_1")["status"] == "completed"


@pytest.mark.parametrize(
    "arguments, parsed",
    [
        ('{"city": "Paris"}', {"city": "Paris"}),
        ("", {}),
        ("not json", {"input": "not json"}),
        ("[1, 2]", {"input": [1, 2]}),
        ({"already": "an object"}, {"already": "an object"}),
    ],
)
def test_arguments_are_parsed_from_json(session_id, arguments, parsed):
    # Set after building: the builder would encode a dict, and an agent may store one as it is.
    item_log.append(session_id, [{**function_call("call_1"), "arguments": arguments}])

    assert timeline_item(session_id, "action:call_1")["arguments"] == parsed


def test_a_function_call_without_a_call_id_is_no_action(session_id):
    item_log.append(session_id, [{"type": "function_call", "name": "get_weather", "arguments": "{}"}])

    assert timeline(session_id) == []


def test_an_appended_call_id_already_in_the_history_keeps_the_first_action(session_id):
    item_log.append(session_id, [function_call("call_1", name="first")])
    item_log.append(session_id, [function_call("call_1", name="second")])

    assert timeline_item(session_id, "action:call_1")["name"] == "first"


def test_chat_tool_calls_and_tool_messages_are_actions(session_id):
    item_log.append(
        session_id,
        [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "role": "assistant",
                "content": "Checking both.",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "name": "get_weather", "content": "22C"},
        ],
    )

    assert timeline_ids(session_id) == ["message:1", "message:2", "action:call_a", "action:call_b"]
    paris, rome = timeline_item(session_id, "action:call_a"), timeline_item(session_id, "action:call_b")
    assert (paris["name"], paris["arguments"], paris["status"], paris["output"]) == (
        "get_weather",
        {"city": "Paris"},
        "completed",
        "22C",
    )
    assert (rome["arguments"], rome["status"]) == ({"city": "Rome"}, "running")


def test_agents_js_calls_and_results_are_actions(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "function_call",
                "id": "fc_1",
                "callId": "call_js",
                "name": "lookup_order",
                "arguments": '{"orderId": 42}',
                "status": "completed",
                "createdAt": "2026-09-28T12:00:00Z",
            },
            {
                "type": "function_call_result",
                "callId": "call_js",
                "name": "lookup_order",
                "status": "completed",
                "output": {"type": "text", "text": "shipped"},
                "createdAt": "2026-09-28T12:00:00.500Z",
            },
        ],
    )

    action = timeline_item(session_id, "action:call_js")
    assert (action["name"], action["arguments"], action["status"], action["durationMs"]) == (
        "lookup_order",
        {"orderId": 42},
        "completed",
        500,
    )
    assert action["output"] == {"type": "text", "text": "shipped"}


def test_a_hosted_web_search_is_an_action_with_its_own_status(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "weather in Paris"},
            }
        ],
    )

    action = timeline_item(session_id, "action:ws_1")
    assert (action["name"], action["callId"], action["status"]) == ("web_search", "ws_1", "completed")
    assert action["arguments"] == {"type": "search", "query": "weather in Paris"}


@pytest.mark.parametrize(
    "item, name, arguments, status",
    [
        (
            {"type": "file_search_call", "id": "fs_1", "status": "in_progress", "queries": ["refund policy"]},
            "file_search",
            {"queries": ["refund policy"]},
            "running",
        ),
        (
            {"type": "code_interpreter_call", "id": "ci_1", "status": "failed", "code": "print(1)"},
            "code_interpreter",
            {"code": "print(1)"},
            "failed",
        ),
        ({"type": "image_generation_call", "id": "ig_1", "status": "completed"}, "image_generation", {}, "completed"),
    ],
)
def test_other_hosted_tool_calls_are_actions(session_id, item, name, arguments, status):
    item_log.append(session_id, [item])

    [action] = timeline(session_id)
    assert action["id"] == f"action:{item['id']}"
    assert (action["name"], action["arguments"], action["status"]) == (name, arguments, status)


def test_a_computer_call_is_completed_by_its_output(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "computer_call",
                "id": "cu_1",
                "call_id": "call_cu",
                "status": "completed",
                "action": {"type": "click", "x": 10, "y": 20},
                "createdAt": "2026-09-28T12:00:00Z",
            },
            {
                "type": "computer_call_output",
                "call_id": "call_cu",
                "output": {"type": "computer_screenshot"},
                "createdAt": "2026-09-28T12:00:02Z",
            },
        ],
    )

    assert timeline_ids(session_id) == ["action:call_cu"]
    action = timeline_item(session_id, "action:call_cu")
    assert (action["name"], action["arguments"], action["durationMs"]) == (
        "computer",
        {"type": "click", "x": 10, "y": 20},
        2000,
    )


def test_an_orcha_action_item_is_an_action(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "action",
                "id": "act_1",
                "callId": "call_7",
                "name": "search_orders",
                "status": "completed",
                "arguments": {"customer": "c_1"},
                "durationMs": 120,
                "summary": "Found 3 orders.",
                "createdAt": "2026-09-28T12:00:00Z",
            }
        ],
    )

    assert timeline(session_id) == [
        {
            "id": "action:call_7",
            "type": "action",
            "createdAt": "2026-09-28T12:00:00Z",
            "name": "search_orders",
            "callId": "call_7",
            "status": "completed",
            "arguments": {"customer": "c_1"},
            "durationMs": 120,
            "summary": "Found 3 orders.",
        }
    ]


def test_an_orcha_action_without_a_status_is_running_until_its_output(session_id):
    item_log.append(session_id, [{"type": "action", "callId": "call_7", "name": "search_orders"}])
    assert timeline_item(session_id, "action:call_7")["status"] == "running"

    item_log.append(session_id, [function_output("call_7", output="3 orders")])

    assert timeline_item(session_id, "action:call_7")["status"] == "completed"

"""GET …/messages then PUT …/messages loses nothing, whatever dialect the history was written in."""

import json

import pytest

from tests.support.items import assistant, function_call, function_output, user

PNG = "data:image/png;base64,iVBORw0KGgo="
RESPONSES = [
    user("Show me the dashboard.", id="msg_1"),
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {
        "type": "computer_call",
        "id": "cu_1",
        "call_id": "call_cu",
        "action": {"type": "screenshot"},
        "status": "completed",
    },
    {"type": "computer_call_output", "call_id": "call_cu", "output": {"type": "computer_screenshot", "image_url": PNG}},
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "weather"}},
    function_call("call_1", "get_weather", {"city": "Oslo"}),
    function_output("call_1", "rain"),
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "And this file?"},
            {"type": "input_image", "image_url": PNG},
            {"type": "input_file", "file_id": "file-abc"},
        ],
    },
    assistant("It rains, and the file is a report.", id="__fake_id__"),
    {"type": "compaction", "encrypted_content": "gAAA"},
]
AGENTS_JS = [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Click the button."}]},
    {"type": "function_call", "callId": "js_1", "name": "lookup", "arguments": '{"q": "x"}', "status": "completed"},
    {
        "type": "function_call_result",
        "callId": "js_1",
        "name": "lookup",
        "status": "completed",
        "output": {"type": "text", "text": "found"},
    },
    {"type": "computer_call", "callId": "js_cu", "status": "completed", "action": {"type": "click", "x": 1, "y": 2}},
    {"type": "computer_call_result", "callId": "js_cu", "output": {"type": "computer_screenshot", "data": PNG}},
    {
        "type": "hosted_tool_call",
        "id": "ht_1",
        "name": "code_interpreter",
        "arguments": "{}",
        "status": "completed",
        "output": "42",
    },
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_image", "image": "https://example.com/cat.png"},
            {"type": "input_file", "file": {"url": "https://example.com/report.pdf"}},
            {"type": "audio", "audio": "UklGRg==", "format": "wav"},
        ],
    },
    {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Done."}],
    },
]
CHAT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "input_text", "text": "Easy input message parts."}]},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "w", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "tool_call_id": "t1", "content": "no name stored"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Look:"},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        ],
    },
    {"role": "assistant", "content": "Nice picture."},
]
ORCHA = [
    {"type": "message", "role": "user", "content": [{"type": "text", "text": "Refund my order."}]},
    {
        "type": "action",
        "callId": "o_1",
        "name": "lookup_order",
        "arguments": {"order": 7},
        "status": "completed",
        "output": {"state": "delivered"},
    },
    {"type": "skill", "id": "sk_1", "name": "refunds", "durationMs": 5},
    {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Refunded."}]},
]
CHAT_PART_TYPES = {"text", "image_url", "input_audio", "file"}


def export(api, session_id):
    response = api.get(f"sessions/{session_id}/messages")
    assert response.status_code == 200
    return response.json()["messages"]


def assert_chat_completions_form(messages):
    names = {}
    for message in messages:
        assert message["role"] in ("user", "assistant", "tool")
        content = message["content"]
        assert (
            content is None or isinstance(content, str) or all(part["type"] in CHAT_PART_TYPES for part in content)
        ), content
        for call in message.get("tool_calls", []):
            assert call["function"]["name"]
            assert isinstance(call["function"]["arguments"], str)
            names[call["id"]] = call["function"]["name"]
        if message["role"] == "tool":
            assert message["name"] == names[message["tool_call_id"]]


@pytest.mark.parametrize("items", [RESPONSES, AGENTS_JS, CHAT, ORCHA], ids=["responses", "agents-js", "chat", "orcha"])
def test_an_export_imports_back_unchanged(api, session_id, items):
    api.post(f"sessions/{session_id}/items", {"items": items})
    exported = export(api, session_id)

    response = api.put("sessions/copy/messages", {"messages": exported})

    assert response.status_code == 200, response.content
    assert export(api, "copy") == exported
    assert_chat_completions_form(exported)


def test_hosted_tool_calls_are_tool_calls_with_a_name_and_their_outputs_tool_messages(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": RESPONSES})

    messages = export(api, session_id)

    calls = [call for message in messages for call in message.get("tool_calls", [])]
    assert [(call["id"], call["function"]["name"]) for call in calls] == [
        ("call_cu", "computer"),
        ("ws_1", "web_search"),
        ("call_1", "get_weather"),
    ]
    tool_messages = [message for message in messages if message["role"] == "tool"]
    assert [(message["tool_call_id"], message["name"]) for message in tool_messages] == [
        ("call_cu", "computer"),
        ("call_1", "get_weather"),
    ]
    assert json.loads(tool_messages[0]["content"]) == {"type": "computer_screenshot", "image_url": PNG}


def test_responses_content_parts_become_chat_completions_parts(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": RESPONSES})

    media_message = [message for message in export(api, session_id) if isinstance(message["content"], list)]

    assert media_message == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "And this file?"},
                {"type": "image_url", "image_url": {"url": PNG}},
                {"type": "file", "file": {"file_id": "file-abc"}},
            ],
        }
    ]


def test_a_chat_tool_message_without_a_name_gets_its_calls_name(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": CHAT})

    messages = export(api, session_id)

    assert messages[0] == {"role": "user", "content": "Easy input message parts."}
    assert {"role": "tool", "tool_call_id": "t1", "name": "w", "content": "no name stored"} in messages


def test_an_output_whose_call_was_compacted_away_is_left_out(api, session_id):
    api.post(f"sessions/{session_id}/items", {"items": [function_output("gone", "late"), user("hi")]})

    assert export(api, session_id) == [{"role": "user", "content": "hi"}]

"""The Agents SDK for JavaScript: its content parts become timeline media, its results complete their calls."""

import pytest

from historyhub.history import item_log
from tests.support.readers import timeline, timeline_item


def js_user(*parts):
    return {"type": "message", "role": "user", "content": list(parts)}


@pytest.mark.parametrize(
    "part, shown",
    [
        (
            {"type": "input_image", "image": "https://example.com/cat.png"},
            {"type": "image", "mimeType": "image/png", "fileUri": "https://example.com/cat.png"},
        ),
        (
            {"type": "input_image", "image": "data:image/jpeg;base64,/9j/4AAQ"},
            {"type": "image", "mimeType": "image/jpeg", "fileUri": "data:image/jpeg;base64,/9j/4AAQ"},
        ),
        (
            {"type": "input_image", "image": {"id": "file-img"}},
            {"type": "image", "mimeType": "image/*", "fileUri": "file-img"},
        ),
        (
            {"type": "input_file", "file": "https://example.com/report.pdf"},
            {"type": "file", "filePath": "https://example.com/report.pdf", "mimeType": "application/pdf"},
        ),
        (
            {"type": "input_file", "file": {"url": "https://example.com/notes.txt"}},
            {"type": "file", "filePath": "https://example.com/notes.txt", "mimeType": "text/plain"},
        ),
        (
            {"type": "input_file", "file": {"id": "file-123"}, "filename": "budget.csv"},
            {"type": "file", "filePath": "file-123", "mimeType": "text/csv"},
        ),
        (
            {"type": "audio", "audio": "UklGRg==", "format": "mp3"},
            {"type": "audio", "mimeType": "audio/mp3", "fileUri": "data:audio/mp3;base64,UklGRg=="},
        ),
        (
            {"type": "audio", "audio": {"id": "audio-1"}, "format": "wav"},
            {"type": "audio", "mimeType": "audio/wav", "fileUri": "audio-1"},
        ),
        (
            {"type": "image", "image": "https://example.com/chart.gif"},
            {"type": "image", "mimeType": "image/gif", "fileUri": "https://example.com/chart.gif"},
        ),
    ],
)
def test_a_js_content_part_is_timeline_media(session_id, part, shown):
    item_log.append(session_id, [js_user({"type": "input_text", "text": "Look:"}, part)])

    [message] = timeline(session_id)

    assert message["content"] == [{"type": "text", "text": "Look:"}, shown]


def test_a_js_part_with_nothing_to_show_is_dropped(session_id):
    item_log.append(session_id, [js_user({"type": "input_text", "text": "Hi"}, {"type": "input_image"})])

    assert timeline(session_id)[0]["content"] == [{"type": "text", "text": "Hi"}]


def test_a_computer_call_result_completes_its_call(session_id):
    item_log.append(
        session_id,
        [
            {"type": "computer_call", "callId": "cu_1", "status": "completed", "action": {"type": "click", "x": 3}},
            {"type": "computer_call_result", "callId": "cu_1", "output": {"type": "computer_screenshot", "data": "x"}},
        ],
    )

    action = timeline_item(session_id, "action:cu_1")
    assert (action["name"], action["status"]) == ("computer", "completed")
    assert action["arguments"] == {"type": "click", "x": 3}
    assert action["output"] == {"type": "computer_screenshot", "data": "x"}


@pytest.mark.parametrize(
    "call, result",
    [
        (
            {"type": "shell_call", "callId": "sh_1", "status": "completed", "action": {"commands": ["ls"]}},
            {"type": "shell_call_output", "callId": "sh_1", "output": [{"stdout": "a", "stderr": ""}]},
        ),
        (
            {"type": "apply_patch_call", "callId": "ap_1", "status": "completed", "operation": {}},
            {"type": "apply_patch_call_output", "callId": "ap_1", "status": "failed", "output": "conflict"},
        ),
        (
            {"type": "function_call", "callId": "fn_1", "name": "lookup", "arguments": "{}"},
            {"type": "function_call_result", "callId": "fn_1", "name": "lookup", "status": "completed", "output": "ok"},
        ),
    ],
)
def test_every_js_result_completes_its_call(session_id, call, result):
    item_log.append(session_id, [call, result])

    [action] = timeline(session_id)
    expected = "failed" if result.get("status") == "failed" else "completed"
    assert (action["callId"], action["status"], action["output"]) == (call["callId"], expected, result["output"])


def test_a_hosted_tool_call_carries_its_own_output(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "hosted_tool_call",
                "id": "ht_1",
                "name": "file_search",
                "arguments": '{"q": "x"}',
                "status": "completed",
                "output": "3 files",
            }
        ],
    )

    action = timeline_item(session_id, "action:ht_1")
    assert (action["name"], action["status"], action["output"]) == ("file_search", "completed", "3 files")
    assert action["arguments"] == {"q": "x"}

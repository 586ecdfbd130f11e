import pytest

from historyhub.history import item_log, sessions
from tests.support.clock import ServerClock, parse_time
from tests.support.items import assistant, user
from tests.support.readers import timeline, timeline_ids


def only_item(session_id):
    [item] = timeline(session_id)
    return item


def test_a_responses_user_message_becomes_a_history_item(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "message",
                "id": "msg_1",
                "role": "user",
                "createdAt": "2026-09-28T12:00:04Z",
                "content": [{"type": "input_text", "text": "Where is my order?"}],
            }
        ],
    )

    assert only_item(session_id) == {
        "id": "message:1",
        "type": "message",
        "createdAt": "2026-09-28T12:00:04Z",
        "role": "user",
        "content": [{"type": "text", "text": "Where is my order?"}],
    }


def test_an_easy_input_message_without_a_type_is_a_message(session_id):
    item_log.append(session_id, [{"role": "user", "content": "Where is my order?"}])

    item = only_item(session_id)
    assert (item["type"], item["role"]) == ("message", "user")
    assert item["content"] == [{"type": "text", "text": "Where is my order?"}]


def test_a_responses_assistant_message_becomes_a_history_item(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "message",
                "id": "msg_2",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "It ships today.", "annotations": []}],
            }
        ],
    )

    item = only_item(session_id)
    assert item["role"] == "assistant"
    assert item["content"] == [{"type": "text", "text": "It ships today."}]


def test_a_refusal_is_shown_as_text(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": "I can't help with that."}],
            }
        ],
    )

    assert only_item(session_id)["content"] == [{"type": "text", "text": "I can't help with that."}]


def test_chat_messages_become_history_items(session_id):
    item_log.append(
        session_id,
        [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi! How can I help?"},
        ],
    )

    assert [(item["role"], item["content"]) for item in timeline(session_id)] == [
        ("user", [{"type": "text", "text": "Hello"}]),
        ("assistant", [{"type": "text", "text": "Hi! How can I help?"}]),
    ]


def test_chat_content_parts_become_message_content(session_id):
    item_log.append(
        session_id,
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "https://cdn.example.com/cat.png", "detail": "low"}},
                ],
            }
        ],
    )

    assert only_item(session_id)["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image", "mimeType": "image/png", "fileUri": "https://cdn.example.com/cat.png"},
    ]


def test_orcha_messages_keep_their_message_content(session_id):
    content = [
        {"type": "text", "text": "Here are the files."},
        {"type": "image", "mimeType": "image/webp", "fileUri": "gs://bucket/a.webp"},
        {"type": "audio", "mimeType": "audio/ogg", "fileUri": "gs://bucket/b.ogg"},
        {"type": "video", "mimeType": "video/mp4", "fileUri": "gs://bucket/c.mp4"},
        {"type": "url", "mimeType": "text/html", "fileUri": "https://example.com/"},
        {"type": "file", "filePath": "/srv/report.pdf", "mimeType": "application/pdf"},
    ]
    item_log.append(session_id, [{"type": "message", "role": "assistant", "content": content}])

    assert only_item(session_id)["content"] == content


def test_a_media_part_without_a_mime_type_gets_one_from_its_uri(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "video", "fileUri": "https://cdn.example.com/clip.mp4"},
                    {"type": "file", "filePath": "/srv/notes.txt"},
                ],
            }
        ],
    )

    assert only_item(session_id)["content"] == [
        {"type": "video", "mimeType": "video/mp4", "fileUri": "https://cdn.example.com/clip.mp4"},
        {"type": "file", "filePath": "/srv/notes.txt", "mimeType": "text/plain"},
    ]


@pytest.mark.parametrize(
    "part, expected",
    [
        (
            {"type": "input_image", "image_url": "https://cdn.example.com/photo.jpg"},
            {"type": "image", "mimeType": "image/jpeg", "fileUri": "https://cdn.example.com/photo.jpg"},
        ),
        (
            {"type": "input_image", "image_url": "data:image/gif;base64,R0lGOD"},
            {"type": "image", "mimeType": "image/gif", "fileUri": "data:image/gif;base64,R0lGOD"},
        ),
        (
            {"type": "input_image", "file_id": "file-abc"},
            {"type": "image", "mimeType": "image/*", "fileUri": "file-abc"},
        ),
        (
            {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "mp3"}},
            {"type": "audio", "mimeType": "audio/mp3", "fileUri": "data:audio/mp3;base64,UklGR"},
        ),
        (
            {"type": "input_file", "file_url": "https://example.com/invoice.pdf"},
            {"type": "file", "filePath": "https://example.com/invoice.pdf", "mimeType": "application/pdf"},
        ),
        (
            {"type": "input_file", "filename": "data.csv", "file_data": "YSxi"},
            {"type": "file", "filePath": "data.csv", "mimeType": "text/csv"},
        ),
        (
            {"type": "file", "file": {"filename": "notes.txt", "file_data": "aGk="}},
            {"type": "file", "filePath": "notes.txt", "mimeType": "text/plain"},
        ),
    ],
)
def test_responses_and_chat_media_parts_are_normalised(session_id, part, expected):
    item_log.append(session_id, [{"type": "message", "role": "user", "content": [part]}])

    assert only_item(session_id)["content"] == [expected]


def test_reasoning_and_tool_call_parts_of_an_assistant_message_are_dropped(session_id):
    item_log.append(
        session_id,
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "The user wants the status."},
                    {"type": "text", "text": "Let me check."},
                    {"type": "tool-call", "toolCallId": "call_1", "toolName": "lookup", "input": {}},
                    {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}},
                ],
            }
        ],
    )

    assert only_item(session_id)["content"] == [{"type": "text", "text": "Let me check."}]


@pytest.mark.parametrize(
    "content",
    [
        "",
        None,
        [],
        [{"type": "output_text", "text": ""}],
        [{"type": "reasoning", "text": "thinking only"}],
    ],
)
def test_a_message_left_without_content_is_skipped(session_id, content):
    item_log.append(session_id, [{"role": "assistant", "content": content}, {"role": "user", "content": "next"}])

    assert timeline_ids(session_id) == ["message:2"]


def test_a_chat_assistant_turn_that_only_calls_tools_is_no_message(session_id):
    item_log.append(
        session_id,
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
                ],
            }
        ],
    )

    assert timeline_ids(session_id) == ["action:call_1"]


@pytest.mark.parametrize(
    "item",
    [
        {"role": "system", "content": "You are helpful."},
        {"type": "message", "role": "system", "content": [{"type": "input_text", "text": "You are helpful."}]},
        {"role": "developer", "content": "Answer briefly."},
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Answer briefly."}]},
        {"role": "tool", "tool_call_id": "call_unknown", "content": "42"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking."}]},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA"},
        {"type": "function_call_output", "call_id": "call_unknown", "output": "42"},
        {"type": "unknown_kind", "text": "whatever"},
        {},
    ],
)
def test_items_that_are_not_history_items(session_id, item):
    item_log.append(session_id, [item])

    assert timeline(session_id) == []


def test_created_at_is_the_items_own_when_it_carries_one(session_id):
    item_log.append(
        session_id,
        [
            user("utc", createdAt="2026-09-28T12:00:04Z"),
            user("offset", createdAt="2026-09-28T14:00:04.250+02:00"),
        ],
    )

    assert [item["createdAt"] for item in timeline(session_id)] == [
        "2026-09-28T12:00:04Z",
        "2026-09-28T12:00:04.250Z",
    ]


@pytest.mark.parametrize(
    "created_at",
    [
        "yesterday",
        "2026-09-28T12:00:04",
        "",
        1790000000000,
        None,
        "2026-13-45T99:00Z",
    ],
)
def test_created_at_is_when_the_server_received_it_otherwise(session_id, created_at):
    with ServerClock() as clock:
        item_log.append(session_id, [user("hello", createdAt=created_at)])

    assert clock.saw(parse_time(only_item(session_id)["createdAt"]))


def test_an_items_own_id_does_not_name_its_history_item(session_id):
    item_log.append(session_id, [user("one", id="msg_abc"), user("two", id="message:9")])

    assert timeline_ids(session_id) == ["message:1", "message:2"]


def test_a_message_of_white_space_leaves_the_last_message_as_it_was(session_id):
    item_log.append(session_id, [user("Where is my parcel?")])
    item_log.append(session_id, [assistant("  \n ")])
    assert sessions.get(session_id).last_message == "Where is my parcel?"
    item_log.append(
        session_id,
        [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_image", "image_url": "https://example.com/a.png"}],
            }
        ],
    )
    assert sessions.get(session_id).last_message == "[image]"

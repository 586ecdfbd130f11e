"""Reading the dialects agents write items in (API.md "Items, the log and its
projections"): Responses (Python and JS Agents SDKs), Chat Completions and Orcha.

Pure functions over one item; nothing here touches the database.
"""

import json
import mimetypes
from datetime import UTC, datetime, timedelta

from historyhub.history import jsonvalues

TEXT_PART_TYPES = {"text", "input_text", "output_text"}
MEDIA_PART_TYPES = {"image", "audio", "video", "url"}
# Items that carry a tool call's result rather than a call of their own.
OUTPUT_TYPES = {"function_call_output", "function_call_result"}
NOT_HOSTED_CALLS = {"function_call", "mcp_approval_request", "mcp_approval_response"}
ORCHA_PASSTHROUGH_TYPES = {"skill", "evaluation", "session_completed"}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def item_key(item):
    """The item's identity: its ``id`` when that is a non-empty string."""
    value = item.get("id")
    return value if isinstance(value, str) and value else None


def item_type(item):
    """The item's type; chat items and easy input messages have only a role."""
    value = item.get("type")
    if isinstance(value, str) and value:
        return value
    if isinstance(item.get("role"), str):
        return "message"
    return ""


def role(item):
    value = item.get("role")
    return value if isinstance(value, str) else ""


def call_id(item):
    """The call the item makes or answers, as the log keeps it beside the item."""
    for field in ("call_id", "callId", "tool_call_id"):
        value = item.get(field)
        if isinstance(value, str) and value:
            return stored_call_id(value)
    return ""


def stored_call_id(value):
    """A call id as a 200-character text column holds it, so calls and outputs pair up by it."""
    return jsonvalues.column_text(value)[:200]


def is_output(kind):
    return kind in OUTPUT_TYPES or kind.endswith("_call_output")


def is_hosted_call(kind):
    return kind.endswith("_call") and kind not in NOT_HOSTED_CALLS


def is_user_message(item):
    return item_type(item) == "message" and role(item) == "user"


def is_assistant_message(item):
    return item_type(item) == "message" and role(item) == "assistant"


# Content ---------------------------------------------------------------------


def _guess_mime(uri, fallback):
    if uri.startswith("data:"):
        return uri[5:].split(";", 1)[0].split(",", 1)[0] or fallback
    guessed, _ = mimetypes.guess_type(uri.split("?", 1)[0])
    return guessed or fallback


def _media(kind, uri, mime_type=None):
    return {"type": kind, "mimeType": mime_type or _guess_mime(uri, f"{kind}/*"), "fileUri": uri}


def _normalise_part(part):
    """One content part as a MessageContent part, or None when it is dropped."""
    if isinstance(part, str):
        return {"type": "text", "text": part} if part else None
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind in TEXT_PART_TYPES:
        text = part.get("text")
        return {"type": "text", "text": text} if isinstance(text, str) and text else None
    if kind == "refusal" and isinstance(part.get("refusal"), str):
        return {"type": "text", "text": part["refusal"]}
    if kind in MEDIA_PART_TYPES and isinstance(part.get("fileUri"), str):
        return _media(kind, part["fileUri"], part.get("mimeType"))
    if kind == "file" and isinstance(part.get("filePath"), str):
        return {
            "type": "file",
            "filePath": part["filePath"],
            "mimeType": part.get("mimeType") or _guess_mime(part["filePath"], "application/octet-stream"),
        }
    if kind in ("input_image", "image_url"):
        url = part.get("image_url")
        if isinstance(url, dict):
            url = url.get("url")
        if isinstance(url, str) and url:
            return _media("image", url)
        if isinstance(part.get("file_id"), str):
            return _media("image", part["file_id"], "image/*")
        return None
    if kind == "input_audio":
        audio = part.get("input_audio") or {}
        if isinstance(audio, dict) and isinstance(audio.get("data"), str):
            audio_format = audio.get("format") or "wav"
            return _media("audio", f"data:audio/{audio_format};base64,{audio['data']}", f"audio/{audio_format}")
        return None
    if kind in ("input_file", "file"):
        file = part.get("file") if isinstance(part.get("file"), dict) else part
        path = file.get("file_url") or file.get("filename") or file.get("file_id")
        if isinstance(path, str) and path:
            return {"type": "file", "filePath": path, "mimeType": _guess_mime(path, "application/octet-stream")}
    return None


def message_content(item):
    """The message's content as MessageContent parts; reasoning and tool-call parts are dropped."""
    content = item.get("content")
    parts = content if isinstance(content, list) else [content]
    return [normal for normal in map(_normalise_part, parts) if normal is not None]


def message_text(item, separator=" "):
    """The text parts of a message, joined."""
    return separator.join(part["text"] for part in message_content(item) if part["type"] == "text")


# Calls -----------------------------------------------------------------------


def parse_arguments(value):
    """Tool arguments as an object: JSON strings are parsed, anything else is kept."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value, parse_constant=_not_json)
        except (ValueError, RecursionError):
            return {"input": value} if value else {}
        return parsed if isinstance(parsed, dict) else {"input": parsed}
    if isinstance(value, dict):
        return value
    return {} if value is None else {"input": value}


def _not_json(constant):
    raise ValueError(f"{constant} is not JSON")


def output_is_error(item):
    if item.get("isError") is True or item.get("is_error") is True:
        return True
    if item.get("status") in ("failed", "error", "incomplete"):
        return True
    output = item.get("output")
    return isinstance(output, dict) and (output.get("type") == "error" or "error" in output)


def hosted_call_status(item):
    status = item.get("status")
    if status in ("failed", "incomplete", "error"):
        return "failed"
    if status == "completed":
        return "completed"
    return "running"


def hosted_call_arguments(item):
    for field in ("arguments", "action", "input", "queries", "code"):
        if field in item:
            value = item[field]
            if field in ("queries", "code"):
                return {field: value}
            return parse_arguments(value)
    return {}


# Time ------------------------------------------------------------------------


def parse_timestamp(value):
    """A timezone-aware datetime from an ISO 8601 string, or None when it is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
        return parsed.astimezone(UTC) if parsed.tzinfo is not None else None
    except (ValueError, OverflowError):
        # Not ISO 8601, or a moment that UTC cannot express (before year 1 or after 9999).
        return None


def item_created_at(item, received_at):
    return parse_timestamp(item.get("createdAt")) or received_at


def item_timestamp_ms(item, received_at):
    """The wire entries' timestamp: the item's own (epoch ms or ISO), else when it was received."""
    value = item.get("timestamp")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
        return int(value)
    moment = parse_timestamp(value) or item_created_at(item, received_at)
    # Counted in whole milliseconds: float seconds * 1000 can land just below.
    return (moment - EPOCH) // timedelta(milliseconds=1)


def format_time(moment):
    """ISO 8601 in UTC with Z; milliseconds only when there are some."""
    if moment is None:
        return None
    # isoformat, unlike strftime, writes years before 1000 with four digits.
    moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="milliseconds" if moment.microsecond else "seconds") + "Z"


USAGE_FIELDS = ("inputTokens", "outputTokens", "reasoningTokens", "cacheReadTokens", "cacheWriteTokens")


def item_usage(item):
    """The Orcha ``usage`` object of an item, as whole numbers, or None."""
    usage = item.get("usage")
    if not isinstance(usage, dict):
        return None
    counted = {
        field: int(usage[field])
        for field in USAGE_FIELDS
        if isinstance(usage.get(field), (int, float)) and not isinstance(usage.get(field), bool)
    }
    return counted or None


def add_usage(total, usage, sign=1):
    result = dict(total or {})
    for field, value in (usage or {}).items():
        result[field] = result.get(field, 0) + sign * value
    return {field: value for field, value in result.items() if value} or None

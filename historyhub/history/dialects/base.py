"""What every dialect reads the same way: an item's type, role, id, call id,
time and usage, and the arguments of a call. Pure functions over one item.

See docs/dialects.md for the item shapes each dialect module recognises.
"""

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from historyhub.lib import jsonvalues

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
USAGE_FIELDS = ("inputTokens", "outputTokens", "reasoningTokens", "cacheReadTokens", "cacheWriteTokens")
# The fields a call id hides in, by dialect: Responses, Agents JS, Chat Completions.
CALL_ID_FIELDS = ("call_id", "callId", "tool_call_id")


@dataclass(slots=True)
class Logged:
    """One item as the log stores it: where it stands and when it arrived."""

    item: dict
    type: str
    role: str
    call_id: str
    position: int
    received_at: datetime
    injected: bool = False
    usage: dict | None = None

    @property
    def created_at(self):
        return created_at(self.item, self.received_at)


def item_type(item):
    """The item's type; chat items and easy input messages have only a role."""
    value = item.get("type")
    if isinstance(value, str) and value:
        return value
    if isinstance(item.get("role"), str):
        return "message"
    return ""


def is_typed(item):
    """Whether the item names its type (Responses, Agents JS, Orcha) rather than only a role (chat)."""
    value = item.get("type")
    return isinstance(value, str) and value != ""


def role(item):
    value = item.get("role")
    return value if isinstance(value, str) else ""


def item_id(item):
    """The item's own id when it is a non-empty string. Not an identity: SDKs reuse ids."""
    value = item.get("id")
    return value if isinstance(value, str) and value else None


def call_id(item):
    """The call the item makes or answers, as the log keeps it beside the item."""
    for field in CALL_ID_FIELDS:
        value = item.get(field)
        if isinstance(value, str) and value:
            return stored_call_id(value)
    return ""


def stored_call_id(value):
    """A call id as a 200-character text column holds it, so calls and outputs pair up by it."""
    return jsonvalues.column_text(value)[:200]


def text_field(item, field, default=""):
    """A string field of an item for a text column of ours; the item keeps the exact value."""
    value = item.get(field)
    return jsonvalues.column_text(value) if isinstance(value, str) and value else default


def name_of(item, default):
    value = item.get("name")
    return value if isinstance(value, str) and value else default


# Calls ---------------------------------------------------------------------------


def parse_arguments(value):
    """Tool arguments as an object: JSON strings are parsed, anything else is kept."""
    if isinstance(value, str):
        try:
            parsed = jsonvalues.loads_untrusted(value)
        except ValueError:
            return {"input": value} if value else {}
        return parsed if isinstance(parsed, dict) else {"input": parsed}
    if isinstance(value, dict):
        return value
    return {} if value is None else {"input": value}


def arguments_text(value):
    """Arguments as Chat Completions carries them: a JSON string."""
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


def output_is_error(item):
    if item.get("isError") is True or item.get("is_error") is True:
        return True
    if item.get("status") in ("failed", "error", "incomplete"):
        return True
    output = item.get("output")
    return isinstance(output, dict) and (output.get("type") == "error" or "error" in output)


def call_status(item):
    """A call item's own status as a timeline status."""
    status = item.get("status")
    if status in ("failed", "incomplete", "error"):
        return "failed"
    if status == "completed":
        return "completed"
    return "running"


# Time ------------------------------------------------------------------------------


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


def created_at(item, received_at):
    return parse_timestamp(item.get("createdAt")) or received_at


def timestamp_ms(item, received_at):
    """The wire entries' timestamp: the item's own (epoch ms or ISO), else when it was received."""
    value = item.get("timestamp")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
        try:
            return int(value)
        except OverflowError:
            pass
    moment = parse_timestamp(value) or created_at(item, received_at)
    # Counted in whole milliseconds: float seconds * 1000 can land just below.
    return (moment - EPOCH) // timedelta(milliseconds=1)


# Usage -----------------------------------------------------------------------------


def item_usage(item):
    """The Orcha ``usage`` object of an item, as whole numbers, or None."""
    usage = item.get("usage")
    if not isinstance(usage, dict):
        return None
    counted = {}
    for field in USAGE_FIELDS:
        value = usage.get(field)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            counted[field] = int(value)
    return counted or None


def add_usage(total, usage, sign=1):
    result = dict(total or {})
    for field, value in (usage or {}).items():
        result[field] = result.get(field, 0) + sign * value
    return {field: value for field, value in result.items() if value} or None

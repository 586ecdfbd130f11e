"""The demo's items, each with a fixed id and a time some minutes ago, in the wire format the API takes."""

from datetime import timedelta

from django.utils import timezone

from historyhub.history import item_log
from historyhub.lib.times import format_time


def append(session_id, items, **fields):
    # The ids are identities: an item the demo wrote before is skipped, so seeding twice changes nothing.
    item_log.append(session_id, items, skip_existing_ids=True, **fields)


def clock(minutes_ago):
    """The time ``minutes_ago`` minutes before now, to the second, as the API writes times."""
    return format_time(timezone.now().replace(microsecond=0) - timedelta(minutes=minutes_ago))


def user(item_id, text, minutes_ago):
    return {"id": item_id, "type": "message", "role": "user", "content": text, "createdAt": clock(minutes_ago)}


def assistant(item_id, text, minutes_ago, usage=None):
    item = {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
        "createdAt": clock(minutes_ago),
    }
    if usage:
        item["usage"] = usage
    return item


def call(item_id, call_id, name, arguments, minutes_ago):
    return {
        "id": item_id,
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "createdAt": clock(minutes_ago),
    }


def output(item_id, call_id, output, minutes_ago):
    return {
        "id": item_id,
        "type": "function_call_output",
        "call_id": call_id,
        "output": output,
        "createdAt": clock(minutes_ago),
    }

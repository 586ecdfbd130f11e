"""Readers and item builders the history tests share."""

import json
from datetime import datetime

from django.utils import timezone

from historyhub.history import history_pages, item_log, sessions
from historyhub.history.schemas import ClientActionOut, HistoryPage, SessionSnapshot


def stored_items(session_id, limit=None):
    """The logical history as the SDK protocol returns it, parsed."""
    return [json.loads(text) for text in item_log.iter_item_texts(session_id, limit)]


def timeline(session_id):
    """Every history item, chronological (sessions in these tests stay under 100)."""
    return history_pages.history(session_id, page=1, page_size=100).items


def timeline_item(session_id, item_id):
    matches = [item for item in timeline(session_id) if item["id"] == item_id]
    assert len(matches) == 1, f"{item_id} appears {len(matches)} times in the timeline"
    return matches[0]


def timeline_ids(session_id):
    return [item["id"] for item in timeline(session_id)]


def snapshot(session_id):
    """The session's snapshot as the API shows it."""
    return SessionSnapshot.from_orm(sessions.snapshot(sessions.get(session_id))).model_dump()


def wire_history(session_id, **pagination):
    """A history page as the API shows it."""
    return HistoryPage.from_orm(history_pages.history(session_id, **pagination)).model_dump()


def shown(action):
    """A client action as the API shows it."""
    return ClientActionOut.from_orm(action).model_dump()


def user(text, **fields):
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}], **fields}


def assistant(text, **fields):
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}], **fields}


def function_call(call_id, name="get_weather", arguments='{"city": "Paris"}', **fields):
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments, **fields}


def function_output(call_id, output="22C and sunny", **fields):
    return {"type": "function_call_output", "call_id": call_id, "output": output, **fields}


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class ServerClock:
    """The server time around a block, to the millisecond the API shows."""

    def __enter__(self):
        now = timezone.now()
        self.before = now.replace(microsecond=now.microsecond // 1000 * 1000)
        return self

    def __exit__(self, *exc_info):
        self.after = timezone.now()

    def saw(self, moment):
        return self.before <= moment <= self.after

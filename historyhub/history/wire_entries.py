"""The wire projection of the log as turns and injections, and the point
lookup of a turn's response by its message id (docs/api.md, "Wire entries").
"""

import re

from historyhub.history import dialects, item_log
from historyhub.history.dialects import base, content
from historyhub.history.models import Session
from historyhub.history.writes import writing
from historyhub.lib import session_keys, validation
from historyhub.lib.errors import InvalidInput

# The id a message without one of its own goes by.
POSITION_ID = re.compile(r"message:([0-9]{1,18})", re.ASCII)


def _entry_id(row):
    return row.item_key or f"message:{row.position}"


def _text(item, separator):
    message = dialects.as_message(item)
    return content.joined_text(message[1], separator) if message is not None else ""


def injection(session_id, row, item):
    return {
        "kind": "injection",
        "id": _entry_id(row),
        "sessionId": session_id,
        "timestamp": base.timestamp_ms(item, row.received_at),
        "content": _text(item, ""),
    }


class _Turn:
    """A user message and the text of the assistant messages that answer it."""

    def __init__(self, session_id, row, item):
        self.entry = {
            "kind": "turn",
            "id": _entry_id(row),
            "sessionId": session_id,
            "timestamp": base.timestamp_ms(item, row.received_at),
            "userIntent": _text(item, " "),
            "assistantMessage": "",
        }
        self.replies = []

    def add_reply(self, item):
        text = _text(item, "")
        if text:
            self.replies.append(text)
            self.entry["assistantMessage"] = "\n\n".join(self.replies)


def wire_entries(key):
    """Every turn and injection of the logical history, in order."""
    session = Session.objects.filter(pk=key).first()
    if session is None:
        return []
    result, turn = [], None
    for row in item_log.logical_rows(session).order_by("position").iterator(chunk_size=1000):
        item = row.value
        role = dialects.message_role(item)
        if role == "user":
            turn = _Turn(session_keys.session_id_of(key), row, item)
            result.append(turn.entry)
        elif role == "assistant":
            if row.injected or turn is None:
                result.append(injection(session_keys.session_id_of(key), row, item))
            else:
                turn.add_reply(item)
    return result


def inject(key, content_text, entry_id=None):
    """Store an assistant message as an injection; returns its entry."""
    if not isinstance(content_text, str):
        raise InvalidInput("content must be a string.")
    item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": content_text}]}
    if entry_id is not None:
        item = {"id": validation.identifier(entry_id, "id"), **item}
    validation.session_key(key)
    checked = validation.items([item])
    with writing(key, create_as="default") as write:
        position = write.session.next_position
        item_log.store(write, checked, injected=True)
        # Read inside the write, under the session's lock: once it commits, a concurrent DELETE …/items may take
        # the row away, or another injection may be the newest (docs/api.md, "Wire entries").
        row = item_log.logical_rows(write.session).get(position=position)
    return injection(session_keys.session_id_of(key), row, row.value)


def find_response(key, message_id):
    """{result: hit | miss | kind_mismatch} for the turn a user message opened; the newest item with the id."""
    session = Session.objects.filter(pk=key).first()
    if session is None:
        return {"result": "miss"}
    rows = item_log.logical_rows(session)
    row = rows.filter(item_key=message_id).order_by("-position").first()
    by_position = POSITION_ID.fullmatch(message_id)
    if row is None and by_position:
        row = rows.filter(position=int(by_position.group(1)), item_key__isnull=True).first()
    if row is None:
        return {"result": "miss"}
    item = row.value
    role = dialects.message_role(item)
    if role != "user":
        if role == "assistant" and (row.injected or not _user_message_before(rows, row.position)):
            return {"result": "kind_mismatch", "kind": "injection"}
        return {"result": "kind_mismatch", "kind": row.type or "unknown"}
    following = rows.filter(position__gt=row.position).order_by("position")
    turn, response_items = _Turn(session_keys.session_id_of(key), row, item), []
    for reply in following.iterator(chunk_size=200):
        value = reply.value
        reply_role = dialects.message_role(value)
        if reply_role == "user":
            break
        if reply.injected:
            continue
        response_items.append(value)
        if reply_role == "assistant":
            turn.add_reply(value)
    if not response_items:
        return {"result": "miss"}
    return {"result": "hit", "entry": turn.entry, "items": response_items}


def _user_message_before(rows, position):
    # The log's type and role columns say what dialects.message_role would of every dialect's message.
    return rows.filter(position__lt=position, type="message", role="user").exists()

"""The wire projection of the log as turns and injections
(session-history-entry.txt), and the point lookup of a turn's response
(history-store.txt ``getResponseById``).
"""

from django.db import transaction

from historyhub.history import dialects, item_log, validation
from historyhub.history.errors import InvalidInput
from historyhub.history.models import Item, Session


def _entry_id(row):
    return row.item_key or f"message:{row.position}"


def _timestamp(row, item):
    return dialects.item_timestamp_ms(item, row.received_at)


def injection(session_id, row, item):
    return {
        "kind": "injection",
        "id": _entry_id(row),
        "sessionId": session_id,
        "timestamp": _timestamp(row, item),
        "content": dialects.message_text(item, ""),
    }


def _turn(session_id, row, item):
    return {
        "kind": "turn",
        "id": _entry_id(row),
        "sessionId": session_id,
        "timestamp": _timestamp(row, item),
        "userIntent": dialects.message_text(item, " "),
        "assistantMessage": "",
    }


def _add_reply(turn, replies, item):
    text = dialects.message_text(item, "")
    if text:
        replies.append(text)
        turn["assistantMessage"] = "\n\n".join(replies)


def entries(session_id):
    """Every turn and injection of the logical history, in order."""
    session = Session.objects.filter(pk=session_id).first()
    if session is None:
        return []
    result, turn, replies = [], None, []
    for row in item_log.logical_rows(session).iterator(chunk_size=1000):
        item = row.value
        if dialects.is_user_message(item):
            turn, replies = _turn(session_id, row, item), []
            result.append(turn)
        elif dialects.is_assistant_message(item):
            if row.injected or turn is None:
                result.append(injection(session_id, row, item))
            else:
                _add_reply(turn, replies, item)
    return result


def inject(session_id, content, entry_id=None):
    """Store an assistant message as an injection; returns its entry."""
    if not isinstance(content, str):
        raise InvalidInput("content must be a string.")
    item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": content}]}
    if entry_id is not None:
        item = {"id": validation.identifier(entry_id, "id"), **item}
    with transaction.atomic():
        item_log.append(session_id, [item], injected=True)
        session = Session.objects.get(pk=session_id)
        row = Item.objects.filter(session=session, epoch=session.epoch, injected=True)
        row = (row.filter(item_key=entry_id) if entry_id else row).order_by("-position").first()
        if row is None:
            # The id was taken by an item of the log that is not an injection: nothing was stored.
            raise InvalidInput(f"id {entry_id!r} already names an item that is not an injection.")
    return injection(session_id, row, row.value)


def find_response(session_id, message_id):
    """{result: hit | miss | kind_mismatch} for the turn a user message opened."""
    session = Session.objects.filter(pk=session_id).first()
    if session is None:
        return {"result": "miss"}
    rows = item_log.logical_rows(session)
    row = rows.filter(item_key=message_id).first()
    if row is None and message_id.startswith("message:") and message_id[8:].isdigit():
        row = rows.filter(position=int(message_id[8:]), item_key__isnull=True).first()
    if row is None:
        return {"result": "miss"}
    item = row.value
    if not dialects.is_user_message(item):
        first_user = rows.filter(kind="message", role="user").values_list("position", flat=True).first()
        if dialects.is_assistant_message(item) and (row.injected or first_user is None or first_user > row.position):
            return {"result": "kind_mismatch", "kind": "injection"}
        return {"result": "kind_mismatch", "kind": row.kind or "unknown"}
    following = rows.filter(position__gt=row.position)
    next_user = following.filter(kind="message", role="user").values_list("position", flat=True).first()
    if next_user is not None:
        following = following.filter(position__lt=next_user)
    response_rows = [reply for reply in following if not reply.injected]
    if not response_rows:
        return {"result": "miss"}
    turn, replies = _turn(session_id, row, item), []
    response_items = []
    for reply in response_rows:
        value = reply.value
        response_items.append(value)
        if dialects.is_assistant_message(value):
            _add_reply(turn, replies, value)
    return {"result": "hit", "entry": turn, "items": response_items}

"""Chat-format history (chat-history-restore.txt): the logical history as
Chat Completions messages, and a validated, all-or-nothing import of them.
"""

import json

from historyhub.history import dialects, item_log
from historyhub.history.errors import InvalidHistory
from historyhub.history.models import Session

ROLES = ("system", "user", "assistant", "tool")
CHAT_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name")


def validate(messages):
    """The messages to store (a leading system message dropped), or InvalidHistory with the fixed message."""
    if not isinstance(messages, list):
        raise InvalidHistory("expected an array of messages")
    call_ids = set()
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidHistory(f"message at index {index} is not an object")
        role = message.get("role")
        if role not in ROLES:
            shown = role if isinstance(role, str) else json.dumps(role)
            raise InvalidHistory(f'message at index {index} has unknown role "{shown}"')
        if role == "system" and index != 0:
            raise InvalidHistory(f"unexpected system message at index {index}")
        call_id = message.get("tool_call_id")
        if role == "tool" and not (isinstance(call_id, str) and call_id in call_ids):
            shown = call_id if isinstance(call_id, str) else json.dumps(call_id)
            raise InvalidHistory(f'orphaned tool_call_id "{shown}"')
        calls = message.get("tool_calls") if role == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                call_ids.add(call["id"])
    return messages[1:] if messages and messages[0].get("role") == "system" else messages


def import_messages(session_id, messages, agent=None):
    """Replace the logical history with chat messages; all or nothing."""
    return item_log.replace(session_id, validate(messages), agent)


def _text(value):
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return value["text"]
    if isinstance(value, list):
        texts = [part.get("text") for part in value if isinstance(part, dict) and isinstance(part.get("text"), str)]
        if len(texts) == len(value):
            return "".join(texts)
    return json.dumps(value, ensure_ascii=False)


def _tool_call(call_id, name, arguments):
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


class _Conversation:
    def __init__(self):
        self.messages = []
        self.tool_names = {}

    def add_call(self, call_id, name, arguments):
        self.tool_names[call_id] = name
        last = self.messages[-1] if self.messages else None
        if last is None or last["role"] != "assistant":
            last = {"role": "assistant", "content": None}
            self.messages.append(last)
        last.setdefault("tool_calls", []).append(_tool_call(call_id, name, arguments))

    def add_output(self, call_id, output):
        self.messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": self.tool_names.get(call_id, ""),
                "content": _text(output),
            }
        )


def export(session_id):
    """The logical history as AgentMessages, with no system message."""
    session = Session.objects.filter(pk=session_id).first()
    if session is None:
        return []
    conversation = _Conversation()
    for row in item_log.logical_rows(session).iterator(chunk_size=1000):
        item = row.value
        kind, role = dialects.item_type(item), dialects.role(item)
        if kind == "message" and "type" not in item and role in ("user", "assistant", "tool"):
            message = {field: item[field] for field in CHAT_FIELDS if field in item}
            message.setdefault("content", None)
            conversation.messages.append(message)
            for call in item.get("tool_calls") or []:
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    conversation.tool_names[call.get("id")] = call["function"].get("name", "")
        elif kind == "message" and role in ("user", "assistant"):
            separator = " " if role == "user" else ""
            conversation.messages.append({"role": role, "content": dialects.message_text(item, separator)})
        elif kind == "function_call" and row.call_id:
            conversation.add_call(row.call_id, item.get("name") or "function", item.get("arguments"))
        elif dialects.is_output(kind) and row.call_id:
            conversation.add_output(row.call_id, item.get("output"))
        elif kind == "action" and row.call_id:
            conversation.add_call(row.call_id, item.get("name") or "action", item.get("arguments"))
            if "output" in item:
                conversation.add_output(row.call_id, item["output"])
    return conversation.messages

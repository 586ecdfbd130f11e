"""Chat-format history (docs/chat-format.md): the logical history as Chat
Completions messages, and a validated, all-or-nothing import of them.

Export asks each item's dialect module for its messages (``to_chat``), which
build them through ``Conversation``; what export returns, import accepts and
stores back unchanged, so a round trip loses nothing.
"""

import json

from historyhub.history import dialects, item_log
from historyhub.history.dialects import base, content
from historyhub.history.models import Session
from historyhub.lib.errors import InvalidHistory

ROLES = ("system", "user", "assistant", "tool")


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


def import_messages(key, messages, agent=None, by_key=None):
    """Replace the logical history with chat messages; all or nothing."""
    return item_log.replace(key, validate(messages), agent, by_key=by_key)


def export(key):
    """The logical history as Chat Completions messages, with no system message."""
    session = Session.objects.filter(pk=key).first()
    if session is None:
        return []
    conversation = Conversation()
    for row in item_log.logical_rows(session).order_by("position").iterator(chunk_size=1000):
        item = row.value
        dialect = dialects.of(item)
        if dialect is not None:
            logged = base.Logged(
                item=item,
                type=base.item_type(item),
                role=base.role(item),
                call_id=row.call_id,
                position=row.position,
                received_at=row.received_at,
            )
            dialect.to_chat(conversation, logged)
    return conversation.messages


class Conversation:
    """Chat Completions messages being built: every tool call has a name, every output a known call."""

    def __init__(self):
        self.messages = []
        self._tool_names = {}

    def add_message(self, role, parts):
        self.messages.append({"role": role, "content": content.chat_content(parts)})

    def add_chat_message(self, message):
        self.messages.append(message)

    def tool_call(self, call_id, name, arguments):
        """A tool_calls entry; the call is known from here on."""
        name = name or "tool"
        self._tool_names[call_id] = name
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": base.arguments_text(arguments)},
        }

    def add_call(self, call_id, name, arguments):
        """A call joins the assistant message just before it, or opens one."""
        last = self.messages[-1] if self.messages else None
        if last is None or last["role"] != "assistant":
            last = {"role": "assistant", "content": None}
            self.messages.append(last)
        last.setdefault("tool_calls", []).append(self.tool_call(call_id, name, arguments))

    def knows_call(self, call_id):
        return isinstance(call_id, str) and call_id in self._tool_names

    def add_output(self, call_id, output):
        """A call's output; one whose call is not in the history (archived by a compaction) cannot be said."""
        if self.knows_call(call_id):
            self.messages.append(
                {"role": "tool", "tool_call_id": call_id, "name": self._tool_names[call_id], "content": _text(output)}
            )

    def add_tool_message(self, message):
        if not isinstance(message.get("name"), str) or not message["name"]:
            message["name"] = self._tool_names[message["tool_call_id"]]
        if message["content"] is None:
            message["content"] = ""
        self.messages.append(message)


def _text(output):
    """A tool output as the text of a tool message."""
    if isinstance(output, str):
        return output
    if output is None:
        return ""
    if isinstance(output, dict) and isinstance(output.get("text"), str):
        return output["text"]
    if isinstance(output, list):
        texts = [part.get("text") for part in output if isinstance(part, dict) and isinstance(part.get("text"), str)]
        if len(texts) == len(output):
            return "".join(texts)
    return json.dumps(output, ensure_ascii=False)

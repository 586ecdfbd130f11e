"""The Chat Completions dialect (PraisonAI, any Chat Completions client, the
Agents SDK's easy input messages): items with a ``role`` and no ``type``,
``{role, content, tool_calls?, tool_call_id?, name?}``. An assistant message's
``tool_calls`` are actions; a ``tool`` message is the output of one.
"""

from historyhub.history.dialects import base, content

NAME = "chat"
CHAT_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name")


def owns(item_type):
    # The registry hands this module every item without a type of its own.
    return item_type == ""


def as_message(item):
    role = base.role(item)
    if role not in ("user", "assistant"):
        return None
    return role, content.message_content(item)


def tool_calls(item):
    """(call id as the item has it, name, arguments) of each well-formed tool_calls entry."""
    calls = item.get("tool_calls") if base.role(item) == "assistant" else None
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"]:
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            yield call["id"], base.name_of(function, "tool"), function.get("arguments")


def call_ids(item):
    found = [base.stored_call_id(call_id) for call_id, _, _ in tool_calls(item)]
    return found + ([base.call_id(item)] if base.role(item) == "tool" and base.call_id(item) else [])


def opens_client_action(item):
    return False


def project(projection, logged):
    item = logged.item
    if logged.role == "tool":
        if logged.call_id:
            projection.complete_action(logged, logged.call_id, item.get("content"), base.output_is_error(item))
        return
    message = as_message(item)
    if message is None:
        return
    projection.add_message(logged, *message)
    for call_id, name, arguments in tool_calls(item):
        projection.add_action(logged, base.stored_call_id(call_id), name, base.parse_arguments(arguments))


def to_chat(conversation, logged):
    """The stored message as it is, with what Chat Completions requires filled in."""
    item = logged.item
    role = base.role(item)
    if role not in ("user", "assistant", "tool"):
        return
    message = {field: item[field] for field in CHAT_FIELDS if field in item}
    message.setdefault("content", None)
    if not content.is_chat_content(message["content"]):
        parts = content.message_content(item)
        message["content"] = content.chat_content(parts) if parts else None
    if role == "tool":
        call_id = item.get("tool_call_id")
        if conversation.knows_call(call_id):
            conversation.add_tool_message(message)
        return
    if "tool_calls" in message:
        message["tool_calls"] = [conversation.tool_call(*call) for call in tool_calls(item)]
        if not message["tool_calls"]:
            del message["tool_calls"]
    conversation.add_chat_message(message)


# Content parts ---------------------------------------------------------------------------


def _text(part):
    return content.text(part.get("text"))


def _input_audio(part):
    audio = part.get("input_audio")
    if isinstance(audio, dict) and isinstance(audio.get("data"), str):
        return content.audio_data(audio["data"], audio.get("format"))
    return None


def _file(part):
    file = part.get("file")
    if not isinstance(file, dict):
        return None
    path = content.first_string(file.get("filename"), file.get("file_id"), file.get("file_data"))
    return content.file(path) if path else None


content.register("text", _text)
content.register("image_url", content.image_url)
content.register("input_audio", _input_audio)
content.register("file", _file)

"""The Responses dialect, which the OpenAI Agents SDK for Python writes (and,
with ``callId``, the JS SDK too): typed messages, function calls and their
outputs, hosted tool calls (``web_search_call``, ``computer_call`` …) and their
``*_output`` items, reasoning and compaction markers.
"""

from historyhub.history.dialects import base, content

NAME = "responses"
# Items that carry no history of their own: the model's reasoning, compaction markers, references.
SILENT_TYPES = {"reasoning", "compaction", "item_reference"}
# Hosted calls keep their input under one of these fields.
HOSTED_INPUT_FIELDS = ("arguments", "action", "input", "queries", "code", "commands")


def owns(item_type):
    return (
        item_type in ("message", "function_call")
        or item_type in SILENT_TYPES
        or is_hosted_call(item_type)
        or is_output(item_type)
    )


def is_hosted_call(item_type):
    return item_type.endswith("_call") and item_type != "function_call"


def is_output(item_type):
    return item_type.endswith("_output")


# Reading ---------------------------------------------------------------------------------


def as_message(item):
    """(role, MessageContent) of a user or assistant message; None for anything else."""
    if item.get("type") != "message" or base.role(item) not in ("user", "assistant"):
        return None
    return base.role(item), content.message_content(item)


def call_ids(item):
    found = base.call_id(item) or (base.item_id(item) if is_hosted_call(base.item_type(item)) else None)
    return [found] if found else []


def opens_client_action(item):
    return False


def hosted_call_name(item, item_type):
    return base.name_of(item, item_type.removesuffix("_call"))


def hosted_call_arguments(item):
    for field in HOSTED_INPUT_FIELDS:
        if field in item:
            value = item[field]
            return base.parse_arguments(value) if field in ("arguments", "action", "input") else {field: value}
    return {}


def output_value(item):
    return item.get("output", item.get("content"))


# Projecting ------------------------------------------------------------------------------


def project(projection, logged):
    item_type, item = logged.type, logged.item
    if item_type == "message":
        message = as_message(item)
        if message is not None:
            projection.add_message(logged, *message)
    elif item_type == "function_call":
        if logged.call_id:
            name = base.name_of(item, "function")
            projection.add_action(logged, logged.call_id, name, base.parse_arguments(item.get("arguments")))
    elif is_hosted_call(item_type):
        call_id = logged.call_id or base.stored_call_id(base.item_id(item) or "")
        if call_id:
            projection.add_action(
                logged,
                call_id,
                hosted_call_name(item, item_type),
                hosted_call_arguments(item),
                base.call_status(item),
            )
    elif is_output(item_type) and logged.call_id:
        projection.complete_action(logged, logged.call_id, output_value(item), base.output_is_error(item))


# Chat form -------------------------------------------------------------------------------


def to_chat(conversation, logged):
    item_type, item = logged.type, logged.item
    if item_type == "message":
        message = as_message(item)
        if message is not None:
            conversation.add_message(*message)
    elif item_type == "function_call":
        call_id = raw_call_id(item)
        if call_id:
            conversation.add_call(call_id, base.name_of(item, "function"), item.get("arguments"))
    elif is_hosted_call(item_type):
        call_id = raw_call_id(item) or base.item_id(item)
        if call_id:
            conversation.add_call(call_id, hosted_call_name(item, item_type), hosted_call_arguments(item))
    elif is_output(item_type):
        call_id = raw_call_id(item)
        if call_id:
            conversation.add_output(call_id, output_value(item))


def raw_call_id(item):
    """The call id exactly as the item carries it, for the chat form."""
    for field in base.CALL_ID_FIELDS:
        value = item.get(field)
        if isinstance(value, str) and value:
            return value
    return None


# Content parts ---------------------------------------------------------------------------


def _text_part(part):
    return content.text(part.get("text"))


def _refusal(part):
    return content.text(part.get("refusal"))


def _input_image(part):
    image = content.image_url(part)
    if image is None and isinstance(part.get("file_id"), str) and part["file_id"]:
        image = content.media("image", part["file_id"], "image/*")
    return image


def _input_file(part):
    if "file" in part:
        return None  # The Agents JS shape: its reader knows which of file and filename names the file.
    path = content.first_string(part.get("file_url"), part.get("filename"), part.get("file_id"))
    return content.file(path) if path else None


content.register("input_text", _text_part)
content.register("output_text", _text_part)
content.register("refusal", _refusal)
content.register("input_image", _input_image)
content.register("input_file", _input_file)

"""The OpenAI Agents SDK for JavaScript (``@openai/agents``). Its calls are the
Responses dialect's with ``callId``; what is its own: results as
``function_call_result``, ``computer_call_result`` and the other ``*_result``
items, ``hosted_tool_call`` items that carry their own output, and its content
parts (``input_image`` with ``image``, ``input_file`` with ``file``, ``audio``
with ``audio`` and ``format``, ``image`` with ``image``).
"""

from historyhub.history.dialects import base, content, responses

NAME = "agents_js"


def owns(item_type):
    return item_type == "hosted_tool_call" or item_type.endswith("_result")


def as_message(item):
    return None


def call_ids(item):
    if base.item_type(item) == "hosted_tool_call":
        found = base.item_id(item)
        return [base.stored_call_id(found)] if found else []
    return [base.call_id(item)] if base.call_id(item) else []


def opens_client_action(item):
    return False


def project(projection, logged):
    item = logged.item
    if logged.type == "hosted_tool_call":
        call_id = base.stored_call_id(base.item_id(item) or f"hosted:{logged.position}")
        extra = {"output": item["output"]} if "output" in item else {}
        projection.add_action(
            logged,
            call_id,
            base.name_of(item, "hosted_tool"),
            base.parse_arguments(item.get("arguments")),
            base.call_status(item),
            **extra,
        )
    elif logged.call_id:
        projection.complete_action(logged, logged.call_id, item.get("output"), base.output_is_error(item))


def to_chat(conversation, logged):
    item = logged.item
    if logged.type == "hosted_tool_call":
        call_id = base.item_id(item)
        if call_id:
            conversation.add_call(call_id, base.name_of(item, "hosted_tool"), item.get("arguments"))
            if "output" in item:
                conversation.add_output(call_id, item["output"])
    else:
        call_id = responses.raw_call_id(item)
        if call_id:
            conversation.add_output(call_id, item.get("output"))


# Content parts ---------------------------------------------------------------------------


def _reference(value):
    """A JS part's source: a URL or data URI as a string, or a stored file as {id} or {url}."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict):
        return content.first_string(value.get("url"), value.get("id"))
    return None


def _image(part):
    source = _reference(part.get("image"))
    return content.media("image", source) if source else None


def _input_file(part):
    source = _reference(part.get("file"))
    if source is None:
        return None
    filename = part.get("filename")
    mime_type = content.guess_mime(filename, "") if isinstance(filename, str) else ""
    return content.file(source, mime_type or None)


def _audio(part):
    source = _reference(part.get("audio"))
    if source is None:
        return None
    if source.startswith(("data:", "http://", "https://", "/")) or isinstance(part.get("audio"), dict):
        audio_format = part.get("format")
        mime_type = f"audio/{audio_format}" if isinstance(audio_format, str) and audio_format else None
        return content.media("audio", source, mime_type)
    # A bare string is base64 audio in the given format.
    return content.audio_data(source, part.get("format"))


content.register("input_image", _image)
content.register("image", _image)
content.register("input_file", _input_file)
content.register("audio", _audio)

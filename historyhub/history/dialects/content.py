"""Message content, read from every dialect's parts and written in two shapes.

Dialect modules register a reader for each content part type they write
(``register``); a part type several dialects share (``input_image``, ``file``,
``audio`` …) has one reader per dialect, tried in turn. A reader returns the part
as a *MessageContent* part, the timeline's shape::

    {"type": "text", "text": …}
    {"type": "image" | "audio" | "video" | "url", "mimeType": …, "fileUri": …}
    {"type": "file", "filePath": …, "mimeType": …}

or None when the part is not its shape. Parts no reader understands (reasoning,
tool-call parts of assistant messages) are dropped. ``chat_parts`` turns
MessageContent back into Chat Completions content (docs/chat-format.md).
"""

import mimetypes
from collections.abc import Callable
from typing import Any

# The readers of each content part type, in the order they were registered.
_READERS: dict[str, list[Callable[..., Any]]] = {}


def register(part_type, reader):
    _READERS.setdefault(part_type, []).append(reader)


def normalise_part(part):
    """One content part as a MessageContent part, or None when it is dropped."""
    if isinstance(part, str):
        return {"type": "text", "text": part} if part else None
    if not isinstance(part, dict):
        return None
    for reader in _READERS.get(part.get("type"), ()):
        normal = reader(part)
        if normal is not None:
            return normal
    return None


def message_content(item):
    """The message's content as MessageContent parts."""
    content = item.get("content")
    parts = content if isinstance(content, list) else [content]
    return [normal for normal in map(normalise_part, parts) if normal is not None]


def joined_text(parts, separator):
    return separator.join(part["text"] for part in parts if part["type"] == "text")


# Readers' helpers ---------------------------------------------------------------------


def guess_mime(uri, fallback):
    if uri.startswith("data:"):
        return uri[5:].split(";", 1)[0].split(",", 1)[0] or fallback
    guessed, _ = mimetypes.guess_type(uri.split("?", 1)[0])
    return guessed or fallback


def media(kind, uri, mime_type=None):
    if not isinstance(mime_type, str) or not mime_type:
        mime_type = guess_mime(uri, f"{kind}/*")
    return {"type": kind, "mimeType": mime_type, "fileUri": uri}


def file(path, mime_type=None):
    if not isinstance(mime_type, str) or not mime_type:
        mime_type = guess_mime(path, "application/octet-stream")
    return {"type": "file", "filePath": path, "mimeType": mime_type}


def text(value):
    return {"type": "text", "text": value} if isinstance(value, str) and value else None


def audio_data(data, audio_format):
    """Base64 audio as a data URI, as the timeline shows media inline."""
    audio_format = audio_format if isinstance(audio_format, str) and audio_format else "wav"
    return media("audio", f"data:audio/{audio_format};base64,{data}", f"audio/{audio_format}")


def image_url(part):
    """The image of a part that carries ``image_url`` as a string or as ``{"url": …}`` (Responses, Chat)."""
    url = part.get("image_url")
    if isinstance(url, dict):
        url = url.get("url")
    return media("image", url) if isinstance(url, str) and url else None


def first_string(*values):
    return next((value for value in values if isinstance(value, str) and value), None)


# Chat Completions content ----------------------------------------------------------------

CHAT_PART_TYPES = {"text", "image_url", "input_audio", "file"}


def is_chat_content(content):
    """Whether content already is Chat Completions content: a string, null, or its parts."""
    if content is None or isinstance(content, str):
        return True
    return isinstance(content, list) and all(_is_chat_part(part) for part in content)


def _is_chat_part(part):
    if not isinstance(part, dict) or part.get("type") not in CHAT_PART_TYPES:
        return False
    kind = part["type"]
    if kind == "text":
        return isinstance(part.get("text"), str)
    if kind == "image_url":
        return isinstance(part.get("image_url"), dict) and isinstance(part["image_url"].get("url"), str)
    if kind == "input_audio":
        audio = part.get("input_audio")
        return isinstance(audio, dict) and isinstance(audio.get("data"), str)
    return isinstance(part.get("file"), dict)


def chat_content(parts):
    """MessageContent as Chat Completions content: text joined with nothing, else content parts."""
    if all(part["type"] == "text" for part in parts):
        return joined_text(parts, "")
    return [_chat_part(part) for part in parts]


def _chat_part(part):
    kind = part["type"]
    if kind == "text":
        return {"type": "text", "text": part["text"]}
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": part["fileUri"]}}
    if kind == "audio" and part["fileUri"].startswith("data:") and ";base64," in part["fileUri"]:
        header, data = part["fileUri"].split(";base64,", 1)
        return {"type": "input_audio", "input_audio": {"data": data, "format": header.rsplit("/", 1)[-1]}}
    if kind == "file":
        path = part["filePath"]
        if path.startswith("data:"):
            return {"type": "file", "file": {"file_data": path}}
        if path.startswith("file-"):
            return {"type": "file", "file": {"file_id": path}}
        return {"type": "file", "file": {"filename": path}}
    # Audio, video and links by address: Chat Completions has no part for them, so the address is text.
    return {"type": "text", "text": part["fileUri"]}

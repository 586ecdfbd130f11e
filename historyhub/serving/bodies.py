"""Request bodies, received whole on the event loop before a request goes on to Django (historyhub.asgi).

A body that trickles in costs a coroutine, never one of the worker's request threads or a database
connection: Django gets the request once its body is all there. It must arrive within
REQUEST_BODY_TIMEOUT seconds of the head, or the request is answered 408 ``request_timeout`` and the
connection closed. One over HISTORYHUB_MAX_BODY_BYTES is refused 413 ``payload_too_large`` as soon
as its Content-Length says so, or as soon as that many bytes have come (a chunked body), without
keeping the rest. Django is then told the length of what came, so a chunked body reads like any other.
"""

import asyncio
import tempfile
from dataclasses import dataclass

from django.conf import settings

from historyhub import faults
from historyhub.serving import answers

# Bodies up to this size wait in memory, larger ones in a temporary file, as Django's ASGI handler keeps them.
IN_MEMORY_BYTES = 256 * 1024
LENGTH_HEADERS = (b"content-length", b"transfer-encoding")


@dataclass
class Request:
    """An ASGI request whose body has arrived: its scope, with the body's length, and a ``receive``
    that gives the body in one message and then whatever the connection says next (a disconnect)."""

    scope: dict
    receive: object


async def received(scope, receive, send):
    """The request once its body has arrived whole, or None: it was answered 408 or 413, or the client left."""
    limit = settings.HISTORYHUB_MAX_BODY_BYTES
    if declared_length(scope) > limit:
        await answers.send(send, faults.payload_too_large(), close=True)
        return None
    body = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)  # noqa: SIM115 - closed here or once replayed
    try:
        async with asyncio.timeout(settings.REQUEST_BODY_TIMEOUT):
            size = await _read(receive, body, limit)
    except TimeoutError:
        body.close()
        await answers.send(send, request_timeout(), close=True)
        return None
    if size is not None and size <= limit:
        return Request(_with_length(scope, size), _replaying(body, receive))
    body.close()
    if size is not None:
        await answers.send(send, faults.payload_too_large(), close=True)
    return None


def request_timeout():
    message = f"The request body did not arrive within {settings.REQUEST_BODY_TIMEOUT} seconds."
    return faults.error_response("request_timeout", message, 408)


def declared_length(scope):
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:  # the parser refuses such a request; another server might not
                return 0
    return 0


async def _read(receive, body, limit):
    """The body's size once it has all come, past ``limit`` as soon as it is, or None when the client left."""
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return size
        body.write(chunk)
        if not message.get("more_body", False):
            return size


def _with_length(scope, size):
    headers = scope["headers"]
    if size == 0 and not any(name in LENGTH_HEADERS for name, _ in headers):
        return scope
    headers = [(name, value) for name, value in headers if name not in LENGTH_HEADERS]
    return {**scope, "headers": [*headers, (b"content-length", str(size).encode())]}


def _replaying(body, receive):
    replayed = False

    async def replay():
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        body.seek(0)
        content = body.read()
        body.close()
        return {"type": "http.request", "body": content, "more_body": False}

    return replay

"""Streamed bodies under Django's ASGI handler, which reads a plain iterator whole into memory before sending."""

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse


async def one_at_a_time(pieces):
    """The pieces of a plain iterator, each made in the request's thread as it is sent."""
    iterator = iter(pieces)
    done = object()
    while (piece := await sync_to_async(next)(iterator, done)) is not done:
        yield piece


def response(request, pieces, content_type, **headers):
    """A StreamingHttpResponse of ``pieces``, made one at a time as they are sent, under ASGI as under WSGI."""
    if isinstance(request, ASGIRequest):
        pieces = one_at_a_time(pieces)
    return StreamingHttpResponse(pieces, content_type=content_type, headers=headers or None)

"""Streamed bodies under Django's ASGI handler, which reads a plain iterator whole into memory before sending."""

from asgiref.sync import sync_to_async


async def one_at_a_time(pieces):
    """The pieces of a plain iterator, each made in the request's thread as it is sent."""
    iterator = iter(pieces)
    done = object()
    while (piece := await sync_to_async(next)(iterator, done)) is not done:
        yield piece

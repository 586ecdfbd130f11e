"""Django responses sent from the serving layer, where no Django handler runs: as ASGI messages, or as
the bytes of an HTTP/1.1 answer written straight to a connection (historyhub.serving.protocol)."""

from django.utils.cache import patch_cache_control


def _headers(response, close):
    # Answers of the moment, kept by no cache, as NoStoreMiddleware makes every answer of Django's chain.
    patch_cache_control(response, no_store=True, private=True)
    headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
    headers.append((b"content-length", str(len(response.content)).encode()))
    if close:
        headers.append((b"connection", b"close"))
    return headers


async def send(send, response, close=False):
    """Send ``response`` as the answer to an ASGI request; ``close`` ends the connection after it."""
    await send({"type": "http.response.start", "status": response.status_code, "headers": _headers(response, close)})
    await send({"type": "http.response.body", "body": response.content})


def wire(response, default_headers):
    """``response`` as the bytes of an answer that closes its connection, led by the server's own headers."""
    lines = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n".encode("latin-1")]
    lines += [name + b": " + value + b"\r\n" for name, value in [*default_headers, *_headers(response, close=True)]]
    return b"".join(lines) + b"\r\n" + response.content

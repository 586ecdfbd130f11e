"""``/mcp``: HistoryHub's MCP tools over streamable HTTP, with the API's Bearer keys (docs/clients.md, "MCP").

The tools are the Python package's (historyhub_client.mcp_server), so the stdio command and this endpoint
cannot drift apart. Each call acts through the API with the caller's own key, in this process (an ASGI
transport, no network): the same scopes, the same project, the same rule that the key that opened an
action cannot decide it. The SDK runs stateless, so any worker answers any request; a call that opens an
action without a sessionId gets a session of its own.
"""

import asyncio

import httpx2
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.http.request import split_domain_port, validate_host
from mcp.server.transport_security import TransportSecuritySettings

from historyhub import faults
from historyhub.apikeys.models import ApiKey
from historyhub.serving import answers
from historyhub_client import AsyncHistoryHubClient
from historyhub_client.mcp_server import build_server

PATH = "/mcp"
# The tools' sessions, when a call names none, belong to this agent.
AGENT = "mcp"

# The SDK's session manager, started by the first request in each worker; the task is kept so it lives on.
_serving = None
_ready = None


def bearer_token(scope):
    for name, value in scope["headers"]:
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if kind.lower() == "bearer" and token.strip() else None
    return None


# Where a request's scope carries the application that routed it here.
APPLICATION = "historyhub.application"


def header(scope, wanted):
    return next((value.decode("latin-1") for name, value in scope["headers"] if name == wanted), "")


def _active_key(token):
    # Outside Django's request cycle: close what a request would close, before and after.
    close_old_connections()
    try:
        return ApiKey.authenticate(token)
    finally:
        close_old_connections()


def _client_for_request(ctx):
    """The API client a tool call uses (closed when the call ends): the caller's key, this process's
    application (the one that routed the request here, ``answer``), the caller's host."""
    request = ctx.request_context.request
    token = bearer_token(request.scope)
    base_url = f"{request.url.scheme}://{request.headers.get('host', '127.0.0.1')}"
    transport = httpx2.ASGITransport(app=request.scope[APPLICATION])
    return AsyncHistoryHubClient(base_url, token, transport=transport)


async def _started_manager():
    global _serving, _ready
    if _ready is None:
        _ready = asyncio.get_running_loop().create_future()
        _serving = asyncio.get_running_loop().create_task(_serve(_ready))
    return await asyncio.shield(_ready)


async def _serve(ready):
    """Run the SDK's session manager for as long as the worker lives."""
    server = build_server(
        _client_for_request,
        agent=AGENT,
        per_call_sessions=True,
        progress_seconds=settings.HISTORYHUB_MCP_PROGRESS_SECONDS,
    )
    # Hosts are checked against ALLOWED_HOSTS in answer(), as Django checks them; the key is the credential.
    server.streamable_http_app(
        stateless_http=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=settings.HISTORYHUB_MAX_BODY_BYTES,
    )
    try:
        async with server.session_manager.run():
            ready.set_result(server.session_manager)
            await asyncio.Event().wait()
    except BaseException as error:
        if not ready.done():
            ready.set_exception(error)
        raise


async def answer(scope, receive, send, *, application):
    """Serve an MCP request; ``application`` is the ASGI app that routed it here, which the tools call back into
    (passed in rather than imported, so this module does not import the one above it)."""
    domain, _ = split_domain_port(header(scope, b"host"))
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        await answers.send(send, faults.error_response("invalid_input", "This host is not served here.", 400))
        return
    token = bearer_token(scope)
    try:
        key = await sync_to_async(_active_key)(token) if token else None
    except faults.DATABASE_UNAVAILABLE:
        await answers.send(send, faults.unavailable())
        return
    if key is None:
        await answers.send(send, faults.unauthorized())
        return
    manager = await _started_manager()
    await manager.handle_request({**scope, APPLICATION: application}, receive, send)

"""The application as production serves it, under gunicorn's uvicorn workers (``bin/start``, ``historyhub.serving``).

Before Django sees a request, on the worker's event loop:

- ``/healthz`` (and ``/healthz/details``) are answered (historyhub.serving.health);
- the request's body is received whole, within REQUEST_BODY_TIMEOUT and HISTORYHUB_MAX_BODY_BYTES
  (historyhub.serving.bodies), so a slow body holds no thread;
- ``/mcp`` goes to the MCP tools over streamable HTTP (historyhub.serving.mcp).

Then a request for one of the views that wait (a client action's ``?wait=``, the dashboard's live
stream: the async views) goes to Django's ASGI handler and waits as a suspended coroutine, holding
no thread (docs/live-updates.md). Every other request runs Django's ordinary synchronous stack,
middleware and view, in one thread from start to end, as a threaded server would run it: under the
ASGI handler each synchronous middleware step would go to a thread and back, some twenty hops a request.
"""

import os

from a2wsgi import WSGIMiddleware
from asgiref.sync import iscoroutinefunction
from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application
from django.urls import Resolver404, resolve

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "historyhub.settings")

waiting_views = get_asgi_application()

from django.conf import settings  # noqa: E402  (settings are read once Django is set up)

from historyhub.serving import bodies, health, mcp  # noqa: E402

threaded = WSGIMiddleware(get_wsgi_application(), workers=settings.REQUEST_THREADS)


def waits(scope):
    """Whether the request is for an async view: those are the ones that wait, and all answer GET."""
    if scope["method"] != "GET":
        return False
    try:
        return iscoroutinefunction(resolve(scope["path"]).func)
    except Resolver404:
        return False


async def application(scope, receive, send):
    if scope["type"] != "http":
        await waiting_views(scope, receive, send)
        return
    if await health.answered(scope, send):
        return
    request = await bodies.received(scope, receive, send)
    if request is None:
        return
    if request.scope["path"] == mcp.PATH:
        await mcp.answer(request.scope, request.receive, send)
        return
    handler = waiting_views if waits(request.scope) else threaded
    await handler(request.scope, request.receive, send)

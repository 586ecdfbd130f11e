"""The application as production serves it, under gunicorn's uvicorn workers (``bin/start``, ``historyhub.serving``).

Before Django sees a request, on the worker's event loop:

- ``/healthz`` (and ``/healthz/details``) are answered (historyhub.serving.health);
- the request's body is received whole, within REQUEST_BODY_TIMEOUT and HISTORYHUB_MAX_BODY_BYTES
  (historyhub.serving.bodies), so a slow body holds no thread;
- ``/mcp`` goes to the MCP tools over streamable HTTP (historyhub.serving.mcp).

Then a request for one of the views that wait (a client action's ``?wait=``, the dashboard's live
stream: the async views) takes a turn at the database (historyhub.live.turns; 503 with Retry-After when
none comes in time), goes to Django's ASGI handler and waits as a suspended coroutine, holding
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

from historyhub import faults, live  # noqa: E402
from historyhub.serving import answers, bodies, health, mcp  # noqa: E402

# Django's handler is a WSGI application; its stub types the answer as the response object, which iterates as bytes.
threaded = WSGIMiddleware(get_wsgi_application(), workers=settings.REQUEST_THREADS)  # type: ignore[arg-type]


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
        await mcp.answer(request.scope, request.receive, send, application=application)
        return
    if not waits(request.scope):
        await threaded(request.scope, request.receive, send)
        return
    # A turn at the database before Django sees the request: a burst of waits queues here, in order, rather
    # than in the connection pool (historyhub.live.turns).
    # Busy comes from taking the turn only (a parked request takes one again without a time limit), so before
    # anything was answered.
    try:
        async with live.turns.turn():
            await waiting_views(request.scope, request.receive, send)
    except live.turns.Busy as busy:
        await answers.send(send, faults.busy(request.scope["path"], busy.retry_after))

"""The one error envelope, and what HistoryHub answers when something outside the domain goes wrong.

Every error a program is answered with is ``{"error": {"code", "message"}}``, built by ``error_response``
here and nowhere else: the API's handlers (historyhub.api), the middleware (faults, the body limit,
Idempotency-Key), the server before Django (historyhub.serving: bodies, headers, /mcp) and the login
throttle's answer to htmx. Under ``/api/`` that holds whatever produced the error: an unknown path, a method
the path does not take, a bug. A database that cannot be reached answers 503 with ``Retry-After``
everywhere: JSON under ``/api/``, a short page elsewhere (docs/operations.md).
"""

import logging

import psycopg
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

# What the database driver raises when the server is down, restarting, unreachable,
# or the pool had no connection to give within its timeout (psycopg_pool's
# PoolTimeout, which Django wraps as an OperationalError). psycopg's own errors
# count too: Django does not wrap every call it makes, and closing a server-side
# cursor (QuerySet.iterator on PostgreSQL) on a connection the server dropped
# raises psycopg.OperationalError as it is (found by the stress run, docs/stress.md).
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)
RETRY_AFTER_SECONDS = 5
UNAVAILABLE_MESSAGE = "The database cannot be reached right now; try again in a few seconds."
BUSY_MESSAGE = "This server has more waits opening than it can take in right now; ask again in a few seconds."
UNAUTHORIZED_MESSAGE = "A valid API key is required: Authorization: Bearer <key>."
# As ninja answers the API's successes: an error reads the same to a client.
JSON_CONTENT_TYPE = "application/json; charset=utf-8"

# The answer under /api/ for an error response that something other than the
# API's own handlers produced (Django's URL resolver, ninja's method dispatch, a crash).
API_ERRORS = {
    400: ("invalid_input", "The request could not be understood."),
    403: ("forbidden", "This request is not allowed."),
    404: ("not_found", "There is nothing at {path}."),
    405: ("method_not_allowed", "{method} is not allowed on {path}; it takes {allowed}."),
    413: ("payload_too_large", "The request body is too large."),
    429: ("rate_limited", "Too many requests; slow down and try again."),
    500: ("internal_error", "The server failed to answer this request; the failure was logged."),
    503: ("service_unavailable", UNAVAILABLE_MESSAGE),
}


def error_response(code, message, status, headers=None):
    """The error envelope with this code, human sentence and status, and ``headers`` (Retry-After, Allow, …)."""
    body = {"error": {"code": code, "message": message}}
    return JsonResponse(body, status=status, headers=headers, content_type=JSON_CONTENT_TYPE)


def unauthorized():
    """401 for a request without a valid API key: the API's and /mcp's."""
    return error_response("unauthorized", UNAUTHORIZED_MESSAGE, 401, {"WWW-Authenticate": "Bearer"})


def unavailable():
    """503 with Retry-After, as JSON, for a database that cannot be reached."""
    return error_response("service_unavailable", UNAVAILABLE_MESSAGE, 503, {"Retry-After": str(RETRY_AFTER_SECONDS)})


def busy(path, retry_after):
    """503 with Retry-After (``retry_after`` seconds: the queue's estimate) for a wait or a live stream that had
    no turn at the database in time (historyhub.live.turns): nothing was done, asking again is safe. JSON under
    /api/, plain text for a page's stream (the browser reconnects by itself)."""
    headers = {"Retry-After": str(retry_after)}
    if path.startswith("/api/"):
        return error_response("service_unavailable", BUSY_MESSAGE, 503, headers)
    return HttpResponse(BUSY_MESSAGE, status=503, content_type="text/plain; charset=utf-8", headers=headers)


def payload_too_large():
    """413 for a request body over HISTORYHUB_MAX_BODY_BYTES: the server refuses it as it arrives
    (historyhub.serving.bodies), ApiBodyLimitMiddleware by its Content-Length wherever else Django runs."""
    limit = settings.HISTORYHUB_MAX_BODY_BYTES
    return error_response("payload_too_large", f"The request body is larger than {limit} bytes.", 413)


def is_api(request):
    return request.path.startswith("/api/")


def is_json(response):
    return response.get("Content-Type", "").startswith("application/json")


def service_unavailable(request, error):
    """503 with Retry-After: JSON for the API, a page that needs no database for a person."""
    logger.warning("The database is unavailable (%s: %s): %s answers 503", type(error).__name__, error, request.path)
    if is_api(request):
        return unavailable()
    return HttpResponse(render_to_string("503.html"), status=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def api_error(request, status, allowed="", headers=None):
    code, message = API_ERRORS.get(status, API_ERRORS[500 if status >= 500 else 400])
    message = message.format(path=request.path, method=request.method, allowed=allowed)
    return error_response(code, message, status, headers)


def as_api_error(request, response):
    """The JSON error for a non-JSON error response under /api/, keeping its Allow and Retry-After."""
    allowed = ", ".join(sorted(method.strip() for method in response.get("Allow", "").split(",") if method.strip()))
    headers = {"Allow": allowed} if allowed else {}
    if "Retry-After" in response:
        headers["Retry-After"] = response["Retry-After"]
    return api_error(request, response.status_code, allowed, headers)

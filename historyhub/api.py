"""The NinjaAPI: /api/v1, its auth, its errors and its OpenAPI schema.

Every error, ours or ninja's, answers the one error envelope (``faults.error_response``).
"""

import json
import logging
import math

from django.conf import settings
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, AuthorizationError, HttpError, Throttled, ValidationError
from ninja.parser import Parser

from historyhub import faults
from historyhub.apikeys.auth import ApiKeyAuth
from historyhub.apikeys.throttling import ApiKeyRateThrottle
from historyhub.faults import error_response
from historyhub.history.api import router as history_router
from historyhub.idempotency import openapi as idempotency_openapi
from historyhub.lib import jsonvalues, validation
from historyhub.lib.errors import DomainError

logger = logging.getLogger(__name__)

BODY_MESSAGE = "The request body must be a JSON object."
# Every pagination mistake gets the contract's one message.
PAGINATION_FIELDS = ("page", "pageSize")


class NotAnObject(ValueError):
    pass


class StrictJSONParser(Parser):
    """A JSON object under the intake rules (historyhub.lib.jsonvalues): finite numbers, bounded depth.

    Every request body of the API is an object; ninja's Schema would read
    any other value as an object with no fields.
    """

    def parse_body(self, request):
        body = jsonvalues.loads_untrusted(request.body, envelope=jsonvalues.ENVELOPE_DEPTH)
        if not isinstance(body, dict):
            raise NotAnObject(BODY_MESSAGE)
        return body


class HistoryHubAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation):
        """The view's name in camelCase (createSession, appendItems), for generated clients."""
        first, *rest = operation.view_func.__name__.split("_")
        return first + "".join(word.capitalize() for word in rest)

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        return idempotency_openapi.document(schema)


api = HistoryHubAPI(
    title="HistoryHub",
    version="1",
    description=(
        "Conversation history for AI agents. Authenticate with `Authorization: Bearer <api key>`. "
        "Strings kept as text (ids, agents, names, descriptions, comments) may hold neither NUL characters "
        "nor unpaired surrogates; items, arguments, outputs and metadata are JSON and may hold both. "
        f"Numbers must be finite and values nest at most {settings.HISTORYHUB_MAX_JSON_DEPTH} levels deep: "
        "anything else is 400 `invalid_input`."
    ),
    urls_namespace="api",
    auth=ApiKeyAuth(),
    parser=StrictJSONParser(),
    throttle=ApiKeyRateThrottle(),
)
api.add_router("/v1", history_router)
# The client-action endpoints right after the rest of history's: the contract's order of routes and operations.
api.add_router("/v1", "historyhub.approvals.client_action_api.router")
api.add_router("/v1", "historyhub.runs.api.router")
api.add_router("/v1", "historyhub.projects.api.router")
api.add_router("/v1", "historyhub.projects.invitations_api.router")
api.add_router("/v1", "historyhub.data.api.router")
api.add_router("/v1", "historyhub.notifications.api.router")
api.add_router("/v1", "historyhub.approvals.api.router")
api.add_router("/v1", "historyhub.data.audit_api.router")
api.add_router("/v1", "historyhub.insights.api.router")


@api.exception_handler(DomainError)
def domain_error(request, exc):
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
    return error_response(exc.code, exc.message, exc.status, headers)


@api.exception_handler(AuthenticationError)
def unauthorized(request, exc):
    return faults.unauthorized()


@api.exception_handler(AuthorizationError)
def forbidden(request, exc):
    return error_response("forbidden", exc.message, 403)


@api.exception_handler(ValidationError)
def invalid_input(request, exc):
    """The first schema error, named by its field as the wire spells it."""
    error = exc.errors[0]
    source, *where = error["loc"]
    if source == "body":
        # ninja nests the body under the view's parameter name; the wire does not.
        where = where[1:]
    if source == "query" and where and where[0] in PAGINATION_FIELDS:
        return error_response("invalid_input", validation.PAGINATION_MESSAGE, 400)
    field = ".".join(str(part) for part in where) or source
    return error_response("invalid_input", f"{field}: {error['msg']}", 400)


@api.exception_handler(HttpError)
def unparsable_body(request, exc):
    # Besides Throttled (below), ninja raises a plain HttpError only for a
    # request body its parser refused; the parser's reason is its cause.
    cause = exc.__cause__
    if isinstance(cause, ValueError) and not isinstance(cause, (json.JSONDecodeError, NotAnObject)):
        # JSON, but out of the intake rules: say which.
        return error_response("invalid_input", f"The request body {cause}.", 400)
    return error_response("invalid_input", BODY_MESSAGE, 400)


@api.exception_handler(Throttled)
def rate_limited(request, exc):
    seconds = max(1, math.ceil(exc.wait or 1))
    message = f"This API key made too many requests; retry in {seconds} seconds."
    return error_response("rate_limited", message, 429, {"Retry-After": str(seconds)})


def database_unavailable(request, exc):
    return faults.service_unavailable(request, exc)


for _error in faults.DATABASE_UNAVAILABLE:
    api.add_exception_handler(_error, database_unavailable)


@api.exception_handler(Exception)
def internal_error(request, exc):
    """The last resort: a bug answers the JSON error shape too, and is logged with its traceback."""
    logger.error("Internal error on %s %s", request.method, request.path, exc_info=exc)
    return faults.api_error(request, 500)

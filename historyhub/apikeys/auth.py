"""The API's bearer authentication: any active key may read, only write keys may write."""

from ninja.errors import AuthorizationError
from ninja.security import HttpBearer

from historyhub.apikeys.models import ApiKey


class BearerApiKey(HttpBearer):
    """The request's active API key, or None, whatever its scope; looked up once per request.

    The idempotency middleware needs the key before ninja authenticates; both
    read the same answer.
    """

    def authenticate(self, request, token):
        cached = getattr(request, "_bearer_api_key", None)
        if cached is None or cached[0] != token:
            cached = request._bearer_api_key = (token, ApiKey.authenticate(token))
        return cached[1]


class ApiKeyAuth(BearerApiKey):
    def authenticate(self, request, token):
        api_key = super().authenticate(request, token)
        # Every read of the API is a GET; anything else changes something.
        if api_key is not None and request.method != "GET" and not api_key.can_write:
            raise AuthorizationError(message="This API key may only read; writing needs a key with the write scope.")
        return api_key


def resolved_by(request):
    """How a decision or result made with this request's key is recorded."""
    return f"api key: {request.auth.name}"

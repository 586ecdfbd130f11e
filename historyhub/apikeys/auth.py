"""The API's bearer authentication: any active key may read, only write keys may write."""

from ninja.errors import AuthorizationError
from ninja.security import HttpBearer

from historyhub.apikeys.models import ApiKey


class ApiKeyAuth(HttpBearer):
    def authenticate(self, request, token):
        api_key = ApiKey.authenticate(token)
        # Every read of the API is a GET; anything else changes something.
        if api_key is not None and request.method != "GET" and not api_key.can_write:
            raise AuthorizationError(message="This API key may only read; writing needs a key with the write scope.")
        return api_key


def resolved_by(request):
    """How a decision or result made with this request's key is recorded."""
    return f"api key: {request.auth.name}"

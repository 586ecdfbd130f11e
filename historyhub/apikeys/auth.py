"""The API's bearer authentication and the scope each call needs (docs/api.md, "Keys and scopes").

Every key reads. A call that changes something needs the ``write`` scope unless
its route asks for another one (deciding a client action asks for ``decide``,
managing the project for ``admin``).
"""

from django.http import HttpRequest
from ninja.errors import AuthorizationError
from ninja.security import HttpBearer

from historyhub.apikeys.models import ApiKey, Scope


class KeyedRequest(HttpRequest):
    """A request the API let in, as its views see it: ``auth`` is the key it came with (for annotations)."""

    auth: ApiKey


class BearerApiKey(HttpBearer):
    """The request's active API key, or None, whatever its scopes; looked up once per request.

    The idempotency middleware needs the key before ninja authenticates; both
    read the same answer.
    """

    def authenticate(self, request, token):
        cached = getattr(request, "_bearer_api_key", None)
        if cached is None or cached[0] != token:
            cached = request._bearer_api_key = (token, ApiKey.authenticate(token))
        return cached[1]


class ApiKeyAuth(BearerApiKey):
    """A key with ``scope``; without one given, ``read`` for a GET and ``write`` for anything else."""

    def __init__(self, scope=None):
        super().__init__()
        self.scope = scope

    def authenticate(self, request, token):
        api_key = super().authenticate(request, token)
        if api_key is None:
            return None
        needed = self.scope or (Scope.READ if request.method == "GET" else Scope.WRITE)
        if not api_key.allows(needed):
            raise AuthorizationError(
                message=f"This call needs an API key with the {needed} scope; this key has {api_key.scopes}."
            )
        return api_key


def resolved_by(request: KeyedRequest) -> str:
    """How a result or claim made with this request's key is recorded."""
    return f"api key: {request.auth.name}"

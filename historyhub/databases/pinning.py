"""Read-your-writes: after a person's write, their reads stay on the primary for DATABASE_REPLICA_PIN_SECONDS.

A signed cookie carries when the write was made, so the pin holds on every
server behind the balancer, whichever one answered the write. Only pages are
pinned: the API never reads the replica.
"""

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse

from historyhub.databases import replica
from historyhub.middleware import PlainMiddleware

COOKIE = "hh_primary"
SALT = "historyhub.databases.pinning"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")


def pinned(request: HttpRequest) -> bool:
    try:
        request.get_signed_cookie(COOKIE, salt=SALT, max_age=settings.DATABASE_REPLICA_PIN_SECONDS)
    except (KeyError, signing.BadSignature):
        return False
    return True


class PinAfterWriteMiddleware(PlainMiddleware):
    """Sets the cookie on the answer to any page write (a POST of a form, a decision), when a replica is read."""

    def after(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if request.method not in SAFE_METHODS and not request.path.startswith("/api/") and replica.configured():
            response.set_signed_cookie(
                COOKIE,
                "1",
                salt=SALT,
                max_age=settings.DATABASE_REPLICA_PIN_SECONDS,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response

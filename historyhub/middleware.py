"""Cross-cutting HTTP concerns: static files, faults, the API's body limit and the CSP header.

Every middleware here can run in an async chain: one that could not would make
Django hold a thread for each request for as long as it lasts, waits and live
streams included. They are ``PlainMiddleware``: what they do to a request and
its answer is plain Python, run on the event loop, where Django's
``MiddlewareMixin`` would hand each step to a thread and back.
"""

import sys
from urllib.parse import urlsplit

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.core.signals import got_request_exception
from django.dispatch import receiver
from django.utils.cache import patch_cache_control
from whitenoise.middleware import WhiteNoiseMiddleware

from historyhub import faults, streaming


class ChainMiddleware:
    """A middleware for a sync or an async chain: it learns which from the step after it, as Django's own do."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)


class PlainMiddleware(ChainMiddleware):
    """A middleware whose ``before`` (answer early, or None) and ``after`` (the answer to send) touch no
    database, so they run where the request is, with no thread hop."""

    def __call__(self, request):
        if self.async_mode:
            return self.__acall__(request)
        response = self.before(request) or self.get_response(request)
        return self.after(request, response)

    async def __acall__(self, request):
        response = self.before(request) or await self.get_response(request)
        return self.after(request, response)

    def before(self, request):
        return None

    def after(self, request, response):
        return response


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise, able to sit in an async chain: a static file is served, anything else passes straight on."""

    async_capable = True

    def __init__(self, get_response):
        super().__init__(get_response)
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.async_mode:
            return self.__acall__(request)
        return super().__call__(request)

    async def __acall__(self, request):
        static_file = self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        if static_file is None:
            return await self.get_response(request)
        response = await sync_to_async(self.serve, thread_sensitive=False)(static_file, request)
        response.streaming_content = streaming.one_at_a_time(response.streaming_content)
        return response


@receiver(got_request_exception, dispatch_uid="historyhub.remember_uncaught_exception")
def remember_uncaught_exception(sender, request=None, **kwargs):
    """Django turns an exception raised in a middleware into a 500 before
    FaultMiddleware sees it; this lets FaultMiddleware tell what it was."""
    if request is not None:
        request.uncaught_exception = sys.exc_info()[1]


class FaultMiddleware(PlainMiddleware):
    """A database that cannot be reached answers 503 wherever it is noticed, and
    every answer under /api/ is JSON: Django's 404, ninja's 405 and any 500 are
    turned into the API's error shape (historyhub.faults)."""

    def after(self, request, response):
        error = getattr(request, "uncaught_exception", None)
        if isinstance(error, faults.DATABASE_UNAVAILABLE):
            return faults.service_unavailable(request, error)
        if faults.is_api(request) and response.status_code >= 400 and not faults.is_json(response):
            return faults.as_api_error(request, response)
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, faults.DATABASE_UNAVAILABLE):
            return faults.service_unavailable(request, exception)
        return None


class ApiBodyLimitMiddleware(PlainMiddleware):
    """Answer 413 for an API request body over the limit before anything parses it.

    Under the server (historyhub.asgi) a body over the limit never gets this far; this is the
    same rule for requests that reach Django another way (the test client, another server)."""

    def before(self, request):
        if request.path.startswith("/api/"):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > settings.HISTORYHUB_MAX_BODY_BYTES:
                return faults.payload_too_large()
        return None


class NoStoreMiddleware(PlainMiddleware):
    """Nothing but static files and answers marked ``public`` may be kept by a browser or a proxy: pages show
    conversations and API answers carry them, so a shared computer's cache or a proxy must not keep a copy
    (``no-store``). An answer meant for everyone (the receipts' public keys, historyhub.approvals.well_known) sets
    ``response.public = True`` and its own Cache-Control."""

    def after(self, request, response):
        if not getattr(response, "public", False):
            patch_cache_control(response, no_store=True, private=True)
        return response


def content_security_policy(media_hosts=()):
    """A strict policy: the pages have no inline scripts or styles to allow, and load images, audio and
    video from this site, data: URLs and the hosts an operator allows, plus those an answer names
    (a session page a person asked to load one host's media: historyhub.dashboard.media)."""
    media = " ".join(["'self'", "data:", *settings.MEDIA_ALLOWED_HOSTS, *media_hosts])
    # The Log out form's answer goes on to the IdP's end-session endpoint (historyhub.sso.views.logout).
    forms = " ".join(["'self'", *([issuer_origin()] if settings.SSO_ENABLED else [])])
    return (
        f"default-src 'self'; script-src 'self'; style-src 'self'; img-src {media}; media-src {media}; "
        f"object-src 'none'; base-uri 'self'; form-action {forms}; frame-ancestors 'none'"
    )


class ContentSecurityPolicyMiddleware(PlainMiddleware):
    """Every answer's Content-Security-Policy; the interactive API docs are served from ninja's own static
    files, so they keep to it too. An answer may name hosts its page loads media from (``media_hosts``)."""

    def after(self, request, response):
        policy = content_security_policy(getattr(response, "media_hosts", ()))
        response.headers.setdefault("Content-Security-Policy", policy)
        return response


def issuer_origin():
    """The IdP's origin, where the Log out form's answer may send a browser on to (its end-session endpoint is there
    at Keycloak, Okta and Entra ID; docs/sso.md, "Limits")."""
    parts = urlsplit(settings.OIDC_ISSUER)
    return f"{parts.scheme}://{parts.netloc}"

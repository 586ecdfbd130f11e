"""Cross-cutting HTTP concerns: the health check, the API's body limit and the CSP header."""

from django.conf import settings
from django.db import connection
from django.http import JsonResponse


def error_response(code, message, status):
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


class HealthCheckMiddleware:
    """``/healthz`` answers before host validation and the HTTPS redirect, so a
    container's own probe on 127.0.0.1 works; it is up when the database answers."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path != "/healthz":
            return self.get_response(request)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception as error:  # any database failure means unhealthy
            return JsonResponse({"status": "unavailable", "error": type(error).__name__}, status=503)
        return JsonResponse({"status": "ok"})


class ApiBodyLimitMiddleware:
    """Answer 413 for an API request body over the limit before anything parses it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/"):
            limit = settings.HISTORYHUB_MAX_BODY_BYTES
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > limit:
                return error_response("payload_too_large", f"The request body is larger than {limit} bytes.", 413)
        return self.get_response(request)


class ContentSecurityPolicyMiddleware:
    """A strict policy: the pages have no inline scripts or styles to allow."""

    # The interactive API docs are served from ninja's own static files, so they keep to it too.
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; "
        "media-src 'self' data: https: http:; object-src 'none'; base-uri 'self'; form-action 'self'; "
        "frame-ancestors 'none'"
    )

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.policy)
        return response

"""What django-axes needs from HistoryHub: whose address a login comes from, and
what a locked-out person sees (settings: AXES_*, docs/operations.md)."""

import math

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import JsonResponse
from django.shortcuts import render


def client_address(request):
    """The address that reached us, or behind the HTTPS proxy the one it reports last.

    Only the proxy's own entry can be trusted: a client may send any
    X-Forwarded-For, and the proxy appends the address it saw to it.
    """
    if settings.BEHIND_HTTPS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR")


def locked_out(request, response, credentials):
    """429 with Retry-After: the login page with the reason, or the API's error shape for htmx and JSON."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    minutes = math.ceil(seconds / 60)
    message = (
        f"Too many failed logins for this username from your address. "
        f"Logging in is blocked for {minutes} minute{'s' if minutes != 1 else ''}; "
        f"each attempt meanwhile starts the wait again."
    )
    if request.htmx or request.get_preferred_type(["text/html", "application/json"]) == "application/json":
        answer = JsonResponse({"error": {"code": "rate_limited", "message": message}}, status=429)
    else:
        username = (credentials or {}).get("username") or request.POST.get("username", "")
        form = AuthenticationForm(request, initial={"username": username})
        context = {"form": form, "next": request.POST.get("next", ""), "lockout": message}
        answer = render(request, "registration/login.html", context, status=429)
    answer["Retry-After"] = str(seconds)
    return answer

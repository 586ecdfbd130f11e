"""Login throttling, on django-axes (settings: AXES_*, docs/operations.md, "Login throttling").

Two limits, neither of which lets an attacker lock the real person out from where they are:

- a username from one address: ``LOGIN_FAILURE_LIMIT`` wrong passwords in a row, then that pair waits
  ``LOGIN_COOLOFF_MINUTES``; attempts during the wait do not start it again;
- one address, whatever the usernames: ``LOGIN_ADDRESS_FAILURE_LIMIT`` wrong passwords within the cool-off,
  then that address waits (password spraying: a few guesses on each of many usernames).

A username is never locked from every address: anyone could then lock anyone out.
"""

import math

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Sum
from django.shortcuts import render

from historyhub import faults


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


def address_failures(request):
    """Wrong passwords from the request's address within the cool-off, for every username together."""
    attempts = AccessAttempt.objects.filter(
        ip_address=get_client_ip_address(request), attempt_time__gte=get_cool_off_threshold(request)
    )
    return attempts.aggregate(failures=Sum("failures_since_start"))["failures"] or 0


def address_throttled(request):
    return address_failures(request) >= settings.LOGIN_ADDRESS_FAILURE_LIMIT


class Handler(AxesDatabaseHandler):
    """axes' database handler, with the per-address limit beside its per-(username, address) one."""

    def is_locked(self, request, credentials=None):
        return super().is_locked(request, credentials) or address_throttled(request)


def locked_out(request, response, credentials):
    """429 with Retry-After: the login page with the reason, or the API's error shape for htmx and JSON."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    minutes = math.ceil(seconds / 60)
    whom = "from your address" if address_throttled(request) else "for this username from your address"
    message = (
        f"Too many failed logins {whom}. "
        f"Logging in is blocked for {minutes} minute{'s' if minutes != 1 else ''} after the last of them."
    )
    if request.htmx or request.get_preferred_type(["text/html", "application/json"]) == "application/json":
        answer = faults.error_response("rate_limited", message, 429)
    else:
        username = (credentials or {}).get("username") or request.POST.get("username", "")
        form = AuthenticationForm(request, initial={"username": username})
        context = {"form": form, "next": request.POST.get("next", ""), "lockout": message}
        answer = render(request, "registration/login.html", context, status=429)
    answer["Retry-After"] = str(seconds)
    return answer

"""The answer to a refused page request (a PermissionDenied): the 403 page, or for htmx a message swapped into the
page's message area, so a refusal on a button press is said where the person looks, never swallowed."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import defaults
from django_htmx.http import reswap, retarget

FALLBACK = "Your account lacks the permission this needs. Nothing was changed."


def forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not getattr(request, "htmx", False):
        return defaults.permission_denied(request, exception)
    reason = str(exception) or FALLBACK
    response = render(request, "dashboard/fragments/refusal.html", {"reason": reason}, status=403)
    return reswap(retarget(response, "#page-messages"), "innerHTML")

"""Accepting an invitation: ``/accounts/invitations/<token>/`` (docs/people.md, "Invitations").

Whoever holds the link joins with a new account (a username and a password Django's validators take), with an
account they log in to here, or with the one they are logged in as; then they are a member with the
invitation's role, logged in, on the project's sessions. A link that is unknown, used, revoked or expired gets
one answer, whichever it is. Refused links and refused forms count against the client's address: after
``FAILURE_LIMIT`` within the login cool-off, the page answers 429 until it passes (links are unguessable, and
this keeps anyone from trying many tokens or passwords through it). Logging in here goes through
``AuthenticationForm`` (``authenticate``), so the login throttling (django-axes) counts it too.
"""

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import AuthenticationForm, BaseUserCreationForm
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from historyhub.dashboard.login_throttling import client_address
from historyhub.projects import invitations
from historyhub.sso.views import sso_context

FAILURE_LIMIT = 20
NOT_OPEN = (
    "This invitation link does not work: it was used already, revoked or has expired (or was never made). "
    "Ask the project's admin for a new one."
)
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


class NewAccountForm(BaseUserCreationForm):
    """A username and a password twice, the password checked by AUTH_PASSWORD_VALIDATORS. A username taken is
    refused with the words Django uses for any username it cannot take, in the form a link's holder alone sees."""

    class Meta(BaseUserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)


def failures_key(request):
    return f"invitation-failures:{client_address(request)}"


def throttled(request):
    return (cache.get(failures_key(request)) or 0) >= FAILURE_LIMIT


def count_failure(request):
    key = failures_key(request)
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    if not cache.add(key, 1, seconds):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, seconds)


def too_many(request):
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    answer = render(request, "registration/invitation.html", {"refused": TOO_MANY}, status=429)
    answer["Retry-After"] = str(seconds)
    return answer


TOO_MANY = "Too many refused attempts from your address. Try again later."


@never_cache
@csrf_protect
def accept_invitation(request, token):
    if request.method not in ("GET", "POST"):
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    if throttled(request):
        return too_many(request)
    invitation = invitations.find_open(token)
    if invitation is None:
        count_failure(request)
        return render(request, "registration/invitation.html", {"refused": NOT_OPEN}, status=404)
    new_account = NewAccountForm(prefix="new")
    existing = AuthenticationForm(request, prefix="login")
    if request.method == "POST":
        action = request.POST.get("action")
        person = None
        if action == "join" and request.user.is_authenticated:
            person = request.user
        elif action in ("new", "login") and not settings.PASSWORD_LOGIN:
            # Single sign-on is the only way in: the page offers it, and a password form posted anyway is refused.
            person = None
        elif action == "new":
            new_account = NewAccountForm(request.POST, prefix="new")
            person = created(new_account, invitation.email)
        elif action == "login":
            existing = AuthenticationForm(request, request.POST, prefix="login")
            if existing.is_valid():
                person = existing.get_user()
        if person is not None:
            if not invitations.accept(invitation, person):
                return render(request, "registration/invitation.html", {"refused": NOT_OPEN}, status=404)
            if person != request.user:
                # A person who was logged in already (by password or single sign-on) stays logged in as they were.
                login(request, person, backend=getattr(person, "backend", MODEL_BACKEND))
            return redirect("dashboard:sessions", project_id=invitation.project_id)
        count_failure(request)
        status = 422
    else:
        status = 200
    context = {"invitation": invitation, "new_account": new_account, "existing": existing, **sso_context(request)}
    return render(request, "registration/invitation.html", context, status=status)


def created(form, email):
    """The new account of a valid form (its address the invitation's), or None with the form's errors."""
    if not form.is_valid():
        return None
    person = form.save(commit=False)
    person.email = email
    try:
        with transaction.atomic():
            person.save()
            return person
    except IntegrityError:
        # Taken between the form's check and the insert.
        form.add_error("username", "A user with that username already exists.")
        return None

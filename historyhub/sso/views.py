"""The login page with single sign-on, the IdP round trip and signing out (docs/sso.md).

The login page offers "Sign in with <IdP>" when single sign-on is configured and, with ``PASSWORD_LOGIN=False``,
no password form: a password posted anyway is refused before it is checked (and no backend would accept it).
"""

import logging
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from mozilla_django_oidc import views as oidc_views

from historyhub.sso import discovery

logger = logging.getLogger(__name__)

ID_TOKEN = "oidc_id_token"  # where mozilla-django-oidc keeps it (OIDC_STORE_ID_TOKEN)


def sso_context(request):
    return {
        "sso_enabled": settings.SSO_ENABLED,
        "sso_provider_name": settings.OIDC_PROVIDER_NAME,
        # Negative, so a page rendered without this context (the lockout page) keeps its password form.
        "sso_only": not settings.PASSWORD_LOGIN,
        "sso_failed": request.GET.get("sso") == "failed",
    }


def login(request):
    if request.method == "POST" and not settings.PASSWORD_LOGIN:
        context = sso_context(request) | {"next": request.POST.get("next", ""), "password_refused": True}
        return render(request, "registration/login.html", context, status=403)
    return auth_views.LoginView.as_view(extra_context=sso_context(request))(request)


class Authenticate(oidc_views.OIDCAuthenticationRequestView):
    """Off to the IdP's authorization endpoint (from discovery), with state, nonce and a PKCE challenge."""

    def __init__(self, *args, **kwargs):
        super(oidc_views.OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)
        self.OIDC_RP_CLIENT_ID = settings.OIDC_CLIENT_ID

    def get(self, request):
        if not settings.SSO_ENABLED:
            raise Http404("Single sign-on is not configured.")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = discovery.provider().authorization_endpoint
        except discovery.DiscoveryFailed as error:
            logger.warning("Single sign-on failed: the IdP's discovery: %s", error)
            return HttpResponseRedirect(settings.LOGIN_REDIRECT_URL_FAILURE)
        return super().get(request)


class Callback(oidc_views.OIDCAuthenticationCallbackView):
    def get(self, request):
        if not settings.SSO_ENABLED:
            raise Http404("Single sign-on is not configured.")
        return super().get(request)


def logout(request):
    """Signs out here; a person who signed in with the IdP goes on to its end-session endpoint, when its discovery
    document has one (RP-initiated logout), and comes back to the login page."""
    id_token = request.session.get(ID_TOKEN)
    response = auth_views.LogoutView.as_view()(request)
    if request.method != "POST" or not id_token or not settings.SSO_ENABLED:
        return response
    try:
        end_session = discovery.provider().end_session_endpoint
    except discovery.DiscoveryFailed as error:
        logger.warning("Single sign-on: signed out here only, the IdP's discovery failed: %s", error)
        return response
    if not end_session:
        return response
    query = urlencode(
        {
            "id_token_hint": id_token,
            "client_id": settings.OIDC_CLIENT_ID,
            "post_logout_redirect_uri": request.build_absolute_uri(reverse("login")),
        }
    )
    return HttpResponseRedirect(f"{end_session}{'&' if '?' in end_session else '?'}{query}")

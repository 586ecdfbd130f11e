"""An IdP on loopback and HistoryHub configured to use it, and a browser's round trip between the two."""

from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest
import requests
from django.conf import settings

from historyhub.sso import discovery
from tests.support.oidc_issuer import CLIENT_ID, CLIENT_SECRET, Issuer

OIDC_BACKEND = "historyhub.sso.backend.OidcBackend"


def configured(issuer, settings_fixture, *, password_login=True):
    """The settings as historyhub/settings.py makes them from OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET."""
    settings_fixture.OIDC_ISSUER = issuer.url
    settings_fixture.OIDC_CLIENT_ID = CLIENT_ID
    settings_fixture.OIDC_CLIENT_SECRET = CLIENT_SECRET
    settings_fixture.SSO_ENABLED = True
    settings_fixture.OIDC_PROVIDER_NAME = "Loopback IdP"
    settings_fixture.PASSWORD_LOGIN = password_login
    backends = [backend for backend in settings.AUTHENTICATION_BACKENDS if backend != OIDC_BACKEND]
    if not password_login:
        backends.remove("django.contrib.auth.backends.ModelBackend")
    settings_fixture.AUTHENTICATION_BACKENDS = [*backends, OIDC_BACKEND]


@contextmanager
def running_issuer(settings_fixture, *, password_login=True):
    """A new IdP, and HistoryHub using it; the discovery document it read before is forgotten."""
    with Issuer() as running:
        configured(running, settings_fixture, password_login=password_login)
        discovery.forget()
        try:
            yield running
        finally:
            discovery.forget()


@pytest.fixture
def issuer(settings):
    with running_issuer(settings) as running:
        yield running


def sign_in(client, issuer, next_url=None):
    """Press "Sign in with …": to the IdP (real HTTP), which signs ``issuer.claims`` in and sends the browser back
    with a code; the callback's answer."""
    start = client.get("/accounts/sso/start/", {"next": next_url} if next_url else {})
    assert start.status_code == 302 and start["Location"].startswith(f"{issuer.url}/authorize?")
    at_idp = requests.get(start["Location"], allow_redirects=False, timeout=10)
    assert at_idp.status_code == 302, at_idp.text
    back = urlsplit(at_idp.headers["Location"])
    assert back.path == "/accounts/sso/callback/"
    return client.get(f"{back.path}?{back.query}")


def signed_in_as(client):
    """The username the client's session belongs to, or None."""
    response = client.get("/accounts/password_change/")
    if response.status_code != 200:
        return None
    return response.wsgi_request.user.get_username()

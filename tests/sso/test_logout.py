"""Signing out ends the session here and, when the IdP has an end-session endpoint, there too."""

from urllib.parse import parse_qs, urlsplit

from django.test import Client

from historyhub.sso import discovery
from tests.sso.conftest import sign_in, signed_in_as
from tests.support.oidc_issuer import CLIENT_ID


def test_signing_out_goes_on_to_the_idps_end_session_endpoint_with_the_id_token(db, issuer):
    client = Client()
    sign_in(client, issuer)
    id_token = client.session["oidc_id_token"]

    response = client.post("/accounts/logout/")

    location = urlsplit(response["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{issuer.url}/logout"
    assert parse_qs(location.query) == {
        "id_token_hint": [id_token],
        "client_id": [CLIENT_ID],
        "post_logout_redirect_uri": ["http://testserver/accounts/login/"],
    }
    assert signed_in_as(client) is None


def test_without_an_end_session_endpoint_signing_out_ends_here(db, issuer):
    issuer.end_session = False
    discovery.forget()
    client = Client()
    sign_in(client, issuer)

    response = client.post("/accounts/logout/")

    assert response["Location"] == "/accounts/login/" and signed_in_as(client) is None


def test_a_person_who_signed_in_with_a_password_signs_out_here_only(db, issuer, django_user_model):
    ada = django_user_model.objects.create_user("ada", password="a-long-password-1")
    client = Client()
    client.force_login(ada, backend="django.contrib.auth.backends.ModelBackend")

    response = client.post("/accounts/logout/")

    assert response["Location"] == "/accounts/login/" and signed_in_as(client) is None


def test_pages_let_the_log_out_form_go_on_to_the_idp_and_nowhere_else(db, issuer):
    policy = Client().get("/accounts/login/")["Content-Security-Policy"]

    assert f"form-action 'self' {issuer.url};" in policy

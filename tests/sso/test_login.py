"""Signing in with the IdP: an account found or made, and every ID token that must not be believed refused."""

import time
from urllib.parse import urlsplit

import requests
from django.contrib.auth import get_user_model
from django.test import Client

from historyhub.sso.models import Identity
from tests.sso.conftest import sign_in, signed_in_as
from tests.support.oidc_issuer import new_key

User = get_user_model()
REFUSED = "/accounts/login/?sso=failed"


def test_the_login_page_offers_the_idp_beside_the_password_form(db, issuer):
    page = Client().get("/accounts/login/?next=/p/default/").content.decode()

    assert 'href="/accounts/sso/start/?next=/p/default/"' in page
    assert "Sign in with Loopback IdP" in page
    assert 'name="password"' in page


def test_without_single_sign_on_the_login_page_has_only_the_password_form(db):
    page = Client().get("/accounts/login/").content.decode()

    assert "Sign in with" not in page and 'name="password"' in page
    assert Client().get("/accounts/sso/start/").status_code == 404


def test_a_first_sign_in_makes_an_account_and_goes_where_the_person_was_going(db, issuer):
    issuer.claims |= {"preferred_username": "ada", "given_name": "Ada", "family_name": "Lovelace"}
    client = Client()

    response = sign_in(client, issuer, next_url="/p/default/")

    assert response.status_code == 302 and response["Location"] == "/p/default/"
    user = User.objects.get(username="ada")
    assert (user.email, user.first_name, user.last_name, user.has_usable_password()) == (
        "ada@example.com",
        "Ada",
        "Lovelace",
        False,
    )
    assert signed_in_as(client) == "ada"
    assert Identity.objects.get(user=user).subject == "subject-1"


def test_the_request_to_the_idp_carries_state_nonce_and_an_s256_challenge_and_the_token_request_its_verifier(
    db, issuer
):
    sign_in(Client(), issuer)

    asked = issuer.authorize_requests[0]
    assert asked["code_challenge_method"] == "S256" and len(asked["code_challenge"]) == 43
    assert len(asked["state"]) >= 32 and len(asked["nonce"]) >= 32
    assert len(issuer.token_requests[0]["code_verifier"]) >= 43


def test_a_verified_email_signs_in_to_the_account_that_has_it(db, issuer):
    ada = User.objects.create_user("ada.l", email="Ada@Example.com", password="a-long-password-1")

    sign_in(client := Client(), issuer)

    assert signed_in_as(client) == "ada.l"
    assert User.objects.count() == 1 and Identity.objects.get().user == ada


def test_an_unverified_email_never_reaches_an_existing_account(db, issuer):
    User.objects.create_user("ada", email="ada@example.com", password="a-long-password-1")
    issuer.claims["email_verified"] = False

    sign_in(client := Client(), issuer)

    newcomer = User.objects.exclude(username="ada").get()
    assert signed_in_as(client) == newcomer.username == "ada-2"
    assert newcomer.email == ""


def test_the_next_sign_in_finds_the_same_account_by_its_subject(db, issuer):
    issuer.claims |= {"email_verified": False, "preferred_username": "ada"}
    sign_in(Client(), issuer)
    issuer.claims["email"] = "ada@elsewhere.example"

    sign_in(client := Client(), issuer)

    assert signed_in_as(client) == "ada" and User.objects.count() == 1


def test_a_deactivated_account_cannot_sign_in(db, issuer):
    User.objects.create_user("ada", email="ada@example.com", is_active=False)

    response = sign_in(client := Client(), issuer)

    assert response["Location"] == REFUSED and signed_in_as(client) is None


def refused(issuer):
    client = Client()
    response = sign_in(client, issuer)
    assert response.status_code == 302 and response["Location"] == REFUSED
    assert signed_in_as(client) is None
    assert not User.objects.exists()
    page = client.get(REFUSED).content.decode()
    assert "Signing in with Loopback IdP did not work" in page


def test_a_token_for_another_client_is_refused(db, issuer):
    issuer.id_token_changes = {"aud": "another-client"}
    refused(issuer)


def test_a_token_from_another_issuer_is_refused(db, issuer):
    issuer.id_token_changes = {"iss": "https://idp.example.com"}
    refused(issuer)


def test_an_expired_token_is_refused(db, issuer):
    issuer.id_token_changes = {"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}
    refused(issuer)


def test_a_token_with_another_nonce_is_refused(db, issuer):
    issuer.id_token_changes = {"nonce": "not-the-one-sent"}
    refused(issuer)


def test_a_token_with_no_nonce_is_refused(db, issuer):
    issuer.id_token_changes = {"nonce": None}
    refused(issuer)


def test_a_token_signed_with_a_key_the_idp_does_not_publish_is_refused(db, issuer):
    issuer.sign_with_other_key = True
    refused(issuer)


def test_a_token_signed_with_the_client_secret_is_refused(db, issuer):
    issuer.sign_with_client_secret = True
    refused(issuer)


def test_a_code_redeemed_without_the_right_verifier_signs_nobody_in(db, issuer):
    """PKCE: the IdP gives the token only to whoever holds the verifier of the challenge the sign-in sent."""
    client = Client()
    start = client.get("/accounts/sso/start/")
    session = client.session
    for state in session["oidc_states"].values():
        state["code_verifier"] = "x" * 64
    session.save()
    back = urlsplit(requests.get(start["Location"], allow_redirects=False, timeout=10).headers["Location"])

    response = client.get(f"{back.path}?{back.query}")

    assert response["Location"] == REFUSED and signed_in_as(client) is None
    assert issuer.token_requests[0]["code_verifier"] == "x" * 64


def test_a_callback_with_a_state_this_browser_did_not_send_is_refused(db, issuer):
    client = Client()
    client.get("/accounts/sso/start/")

    response = client.get("/accounts/sso/callback/", {"code": "stolen-code", "state": "forged-state"})

    assert response.status_code == 400 and signed_in_as(client) is None
    assert issuer.token_requests == []


def test_a_rotated_key_is_fetched_again(db, issuer):
    sign_in(Client(), issuer)
    issuer.key, issuer.kid = new_key(), "key-2"

    sign_in(client := Client(), issuer)

    assert signed_in_as(client) is not None


def test_an_operator_linked_subject_signs_in_to_the_linked_account(db, issuer):
    """Two accounts share the email: the sign-in is refused until an operator links one in the admin."""
    User.objects.create_user("ada", email="ada@example.com")
    ada_two = User.objects.create_user("ada.two", email="ada@example.com")
    operator = User.objects.create_superuser("operator", password="a-long-password-1")
    assert sign_in(Client(), issuer)["Location"] == REFUSED

    admin = Client()
    admin.force_login(operator, backend="django.contrib.auth.backends.ModelBackend")
    added = admin.post("/admin/sso/identity/add/", {"user": ada_two.pk, "issuer": issuer.url, "subject": "subject-1"})
    assert added.status_code == 302

    sign_in(client := Client(), issuer)
    assert signed_in_as(client) == "ada.two"


def test_deactivating_a_person_ends_the_session_they_began_with_the_idp(db, issuer):
    sign_in(client := Client(), issuer)
    User.objects.filter(username="ada").update(is_active=False)

    assert signed_in_as(client) is None

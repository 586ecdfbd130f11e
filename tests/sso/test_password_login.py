"""PASSWORD_LOGIN=False: single sign-on is the only way in, on the login page and in /admin/ alike."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.sso.conftest import running_issuer, sign_in, signed_in_as

User = get_user_model()


@pytest.fixture
def sso_only(settings):
    with running_issuer(settings, password_login=False) as running:
        yield running


def test_the_login_page_has_no_password_form(db, sso_only):
    page = Client().get("/accounts/login/").content.decode()

    assert 'name="password"' not in page and "Sign in with Loopback IdP" in page


def test_a_password_posted_anyway_is_refused(db, sso_only):
    User.objects.create_user("ada", password="a-long-password-1")
    client = Client()

    response = client.post("/accounts/login/", {"username": "ada", "password": "a-long-password-1"})

    assert response.status_code == 403
    assert "Passwords are not accepted here" in response.content.decode()
    assert signed_in_as(client) is None


def test_the_admin_accepts_no_password_either(db, sso_only):
    User.objects.create_superuser("operator", password="a-long-password-1")
    client = Client()

    client.post("/admin/login/", {"username": "operator", "password": "a-long-password-1", "next": "/admin/"})

    assert client.get("/admin/").status_code == 302


def test_a_session_begun_with_a_password_ends(db, sso_only):
    ada = User.objects.create_user("ada", password="a-long-password-1")
    client = Client()
    client.force_login(ada, backend="django.contrib.auth.backends.ModelBackend")

    assert signed_in_as(client) is None


def test_single_sign_on_still_lets_people_in(db, sso_only):
    sign_in(client := Client(), sso_only)

    assert signed_in_as(client) == "ada"


def test_with_passwords_on_the_lockout_page_keeps_its_password_form(db, settings):
    settings.AXES_FAILURE_LIMIT = 1
    client = Client()
    client.post("/accounts/login/", {"username": "ada", "password": "wrong"})

    response = client.post("/accounts/login/", {"username": "ada", "password": "wrong"})

    assert response.status_code == 429 and 'name="password"' in response.content.decode()

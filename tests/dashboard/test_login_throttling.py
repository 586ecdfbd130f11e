"""Login throttling (django-axes): a username from one address is locked out after
LOGIN_FAILURE_LIMIT wrong passwords, for LOGIN_COOLOFF_MINUTES, with a clear 429."""

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import F
from django.test import Client

from tests.support.actors import HTMX
from tests.support.html import parse
from tests.support.readers import assert_error

LOGIN = "/accounts/login/"
LOCKOUT_MESSAGE = (
    "Too many failed logins for this username from your address. "
    "Logging in is blocked for 15 minutes; each attempt meanwhile starts the wait again."
)


@pytest.fixture(autouse=True)
def failure_limit(settings):
    """Fewer than the default 5, to hash fewer wrong passwords; the default is in test_configuration.py."""
    settings.AXES_FAILURE_LIMIT = 3


def log_in(client, password, username="owner", **headers):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/approvals/"}, headers=headers)


def fail(client, times, username="owner", **headers):
    for _ in range(times):
        assert log_in(client, "wrong password", username, **headers).status_code == 200


def lock_out(client, **headers):
    fail(client, settings.AXES_FAILURE_LIMIT - 1, **headers)
    assert log_in(client, "wrong password", **headers).status_code == 429


def test_the_login_that_reaches_the_limit_locks_the_username_out_even_with_the_right_password(approver):
    client = Client()
    fail(client, settings.AXES_FAILURE_LIMIT - 1)

    locked = log_in(client, "wrong password")
    assert locked.status_code == 429 and locked["Retry-After"] == str(15 * 60)
    response = log_in(client, "owner-password-1")

    assert response.status_code == 429 and response["Retry-After"] == str(15 * 60)
    page = parse(response)
    notice = page.one(".notice.error")
    assert notice["role"] == "alert" and notice.text() == LOCKOUT_MESSAGE
    assert page.field("username")["value"] == "owner" and page.field("next")["value"] == "/approvals/"
    assert client.get("/").status_code == 302


def test_htmx_and_json_requests_get_the_lockout_as_the_api_error_shape(approver):
    client = Client()
    lock_out(client)

    for headers in (HTMX, {"Accept": "application/json"}):
        response = log_in(client, "owner-password-1", **headers)
        assert_error(response, 429, "rate_limited", LOCKOUT_MESSAGE)
        assert response["Retry-After"] == str(15 * 60)


def test_the_lockout_is_for_the_username_from_that_address_only(approver, viewer):
    client = Client()
    lock_out(client)

    assert log_in(client, "viewer-password-1", username="viewer").status_code == 302
    elsewhere = Client(REMOTE_ADDR="203.0.113.9")
    assert log_in(elsewhere, "owner-password-1").status_code == 302


def test_a_forged_forwarded_address_does_not_escape_the_lockout(approver):
    client = Client()
    for number in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "wrong password", **{"X-Forwarded-For": f"198.51.100.{number}"})

    assert log_in(client, "owner-password-1", **{"X-Forwarded-For": "198.51.100.200"}).status_code == 429


def test_behind_the_https_proxy_the_address_the_proxy_saw_is_the_one_locked_out(approver, settings):
    settings.BEHIND_HTTPS_PROXY = True
    client = Client(REMOTE_ADDR="10.0.0.1")
    # The client wrote the first address; the proxy appended the one it saw.
    lock_out(client, **{"X-Forwarded-For": "192.0.2.1, 198.51.100.7"})
    assert log_in(client, "owner-password-1", **{"X-Forwarded-For": "192.0.2.2, 198.51.100.7"}).status_code == 429

    assert log_in(client, "owner-password-1", **{"X-Forwarded-For": "198.51.100.8"}).status_code == 302


def test_a_successful_login_starts_the_count_again(approver):
    client = Client()
    for _ in range(2):
        fail(client, settings.AXES_FAILURE_LIMIT - 1)
        assert log_in(client, "owner-password-1").status_code == 302
        client.post("/accounts/logout/")


def test_after_the_cool_off_the_person_can_log_in_again(approver):
    client = Client()
    lock_out(client)

    AccessAttempt.objects.update(attempt_time=F("attempt_time") - settings.AXES_COOLOFF_TIME)

    assert log_in(client, "owner-password-1").status_code == 302


def test_the_admin_login_is_locked_out_too(db):
    User.objects.create_superuser("root", password="root-password-1")
    client = Client()
    credentials = {"username": "root", "password": "wrong password", "next": "/admin/"}
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/admin/login/", credentials)

    response = client.post("/admin/login/", {**credentials, "password": "root-password-1"})
    assert response.status_code == 429 and LOCKOUT_MESSAGE in parse(response).text()


@pytest.mark.parametrize("limit", [1, 2])
def test_the_limit_is_the_configured_one(approver, settings, limit):
    settings.AXES_FAILURE_LIMIT = limit
    client = Client()
    fail(client, limit - 1)

    assert log_in(client, "wrong password").status_code == 429

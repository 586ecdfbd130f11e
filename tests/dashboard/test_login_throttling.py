"""Login throttling (django-axes): a username from one address is locked out after
LOGIN_FAILURE_LIMIT wrong passwords, and an address after LOGIN_ADDRESS_FAILURE_LIMIT for any usernames, for
LOGIN_COOLOFF_MINUTES after the last of them, with a clear 429; nobody is locked out from everywhere."""

from datetime import timedelta

import pytest
import time_machine
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
    "Logging in is blocked for 15 minutes after the last of them."
)
ADDRESS_LOCKOUT_MESSAGE = (
    "Too many failed logins from your address. Logging in is blocked for 15 minutes after the last of them."
)


@pytest.fixture(autouse=True)
def failure_limit(settings):
    """Fewer than the default 5, to hash fewer wrong passwords; the default is in test_configuration.py."""
    settings.AXES_FAILURE_LIMIT = 3


def log_in(client, password, username="owner", **headers):
    return client.post(
        LOGIN, {"username": username, "password": password, "next": "/p/default/approvals/"}, headers=headers
    )


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
    assert page.field("username")["value"] == "owner" and page.field("next")["value"] == "/p/default/approvals/"
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


def test_attempts_during_a_lockout_do_not_start_the_wait_again(approver):
    client = Client()
    with time_machine.travel("2026-12-01 10:00:00Z", tick=False) as clock:
        lock_out(client)
        clock.shift(timedelta(minutes=10))
        assert log_in(client, "wrong password").status_code == 429
        assert log_in(client, "owner-password-1").status_code == 429

        clock.shift(timedelta(minutes=5, seconds=1))

        assert log_in(client, "owner-password-1").status_code == 302


def test_an_attacker_who_locks_a_username_out_does_not_lock_the_person_out_from_their_own_address(approver):
    attacker = Client(REMOTE_ADDR="198.51.100.66")
    for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT + 5):
        log_in(attacker, "guess")
    assert log_in(attacker, "owner-password-1").status_code == 429

    person = Client(REMOTE_ADDR="203.0.113.9")

    assert log_in(person, "owner-password-1").status_code == 302


def test_a_few_guesses_on_each_of_many_usernames_from_one_address_are_throttled(db, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 8
    User.objects.create_user("ada", password="ada-password-1")
    sprayer = Client(REMOTE_ADDR="198.51.100.77")
    # Two wrong passwords each (below the per-username limit of 3) on four usernames: eight in all.
    for username in ("ada", "bob", "cy", "dee"):
        fail(sprayer, 2, username=username)

    response = log_in(sprayer, "ada-password-1", username="ada")

    assert response.status_code == 429
    assert parse(response).one(".notice.error").text() == ADDRESS_LOCKOUT_MESSAGE
    assert log_in(Client(REMOTE_ADDR="203.0.113.10"), "ada-password-1", username="ada").status_code == 302

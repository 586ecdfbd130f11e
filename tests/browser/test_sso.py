"""Single sign-on in a browser: in through the IdP with a role from its groups, and out at the IdP too
(docs/sso.md)."""

import pytest
from playwright.sync_api import expect

from tests.sso.conftest import running_issuer

pytestmark = pytest.mark.browser


@pytest.fixture
def issuer(settings, transactional_db):
    with running_issuer(settings, password_login=False) as running:
        settings.OIDC_ROLES_CLAIM = "groups"
        settings.OIDC_PROJECT_ROLES = {"engineers": {"default": "approver"}}
        running.claims |= {"preferred_username": "ada", "groups": ["engineers"]}
        yield running


def test_a_person_signs_in_with_the_idp_and_out_at_the_idp(page, issuer):
    page.goto("/")
    expect(page).to_have_url("/accounts/login/?next=/")
    expect(page.get_by_label("Password")).to_have_count(0)

    page.get_by_role("link", name="Sign in with Loopback IdP").click()

    expect(page.get_by_role("heading", name="Sessions", exact=True)).to_be_visible()
    expect(page.locator(".account")).to_contain_text("ada")

    page.get_by_role("button", name="Log out").click()

    expect(page).to_have_url("/accounts/login/")
    assert len(issuer.end_session_requests) == 1
    page.goto("/")
    expect(page).to_have_url("/accounts/login/?next=/")


def test_a_live_update_in_flight_does_not_cancel_the_sign_out_at_the_idp(page, issuer):
    """The race seen on a busy machine: a list's live refresh, answered "log in again" once the person is signed
    out here, navigated to the login page and cancelled the redirects through the IdP's end-session endpoint."""
    page.goto("/")
    page.get_by_role("link", name="Sign in with Loopback IdP").click()
    expect(page.locator(".account")).to_contain_text("ada")
    page.wait_for_function("() => window.htmx !== undefined && document.getElementById('inbox-count') !== null")
    # The IdP takes its time, and the header's count refreshes live every 100 ms meanwhile, as the stream can ask.
    issuer.end_session_delay = 1.5
    page.evaluate("() => setInterval(() => htmx.trigger(document.getElementById('inbox-count'), 'sse:changed'), 100)")

    page.get_by_role("button", name="Log out").click()

    expect(page).to_have_url("/accounts/login/")
    assert len(issuer.end_session_requests) == 1

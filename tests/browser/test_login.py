import pytest
from playwright.sync_api import expect

from historyhub.history import item_log, sessions

pytestmark = pytest.mark.browser


def test_a_person_logs_in_through_the_form_and_sees_the_sessions(page, approver):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Where is my order?")
    item_log.append("support-1", [{"role": "user", "content": "Where is my order #4411?"}])

    page.goto("/")
    expect(page).to_have_url("/accounts/login/?next=/")
    page.get_by_label("Username").fill("owner")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("Please enter a correct username and password")

    page.get_by_label("Password").fill("owner-password-1")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url("/p/default/")
    expect(page.get_by_role("heading", name="Sessions", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Where is my order?")).to_be_visible()
    expect(page.locator(".account")).to_contain_text("owner")

    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url("/accounts/login/")

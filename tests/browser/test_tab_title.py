"""The tab's title carries the number of actions waiting for a person, and follows it (static/js/tab-title.js)."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_title_counts_what_waits_and_follows_a_decision(approver_page, refund_session):
    page = approver_page
    page.goto("/p/default/sessions/refund-1/")
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    page.locator(".entry-client_action").get_by_role("button", name="Reject").click()
    expect(page.locator("#inbox-count")).to_have_text("0")
    expect(page).not_to_have_title(re.compile(r"^\(\d+\) "))

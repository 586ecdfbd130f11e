"""Copy buttons put the exact text on the clipboard (static/js/copy.js)."""

import pytest
from playwright.sync_api import expect

from historyhub.history import sessions
from tests.browser.conftest import log_in, watched_page

pytestmark = pytest.mark.browser


def test_the_session_id_is_copied_to_the_clipboard(browser, asgi_live_server, approver):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Where is my order?")
    context = browser.new_context(base_url=asgi_live_server.url)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        page.goto("/p/default/sessions/support-1/")
        button = page.get_by_role("button", name="Copy the session id")
        button.click()
        expect(button).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == "support-1"
        assert problems == []
    finally:
        context.close()

"""The light/dark toggle follows the system until a choice, then keeps the choice across pages
(static/js/theme.js, the light-dark() colours of static/css/historyhub.css)."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in, watched_page

pytestmark = pytest.mark.browser

BACKGROUND = "getComputedStyle(document.body).backgroundColor"
LIGHT, DARK = "rgb(246, 247, 249)", "rgb(17, 21, 28)"


def test_the_theme_follows_the_system_and_then_the_choice_which_is_kept(browser, asgi_live_server, approver):
    context = browser.new_context(base_url=asgi_live_server.url, color_scheme="dark")
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        assert page.evaluate(BACKGROUND) == DARK
        toggle = page.get_by_role("button", name="Theme: auto")
        toggle.click()
        expect(page.locator("html")).to_have_attribute("data-theme", "light")
        assert page.evaluate(BACKGROUND) == LIGHT
        page.goto("/p/default/approvals/")
        # Rendered by the server from the cookie: light from the first paint.
        expect(page.locator("html")).to_have_attribute("data-theme", "light")
        assert page.evaluate(BACKGROUND) == LIGHT
        page.get_by_role("button", name="Theme: light").click()
        assert page.evaluate(BACKGROUND) == DARK
        page.get_by_role("button", name="Theme: dark").click()
        expect(page.locator("html")).not_to_have_attribute("data-theme", "dark")
        assert page.evaluate(BACKGROUND) == DARK  # auto again: the system's dark
        assert problems == []
    finally:
        context.close()

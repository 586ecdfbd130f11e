"""The light/dark toggle follows the system until a choice, then keeps the choice across pages
(static/js/theme.js, the light-dark() colours of static/css/historyhub.css)."""

import pytest
from playwright.sync_api import expect

from historyhub.history import client_actions, sessions
from historyhub.projects.models import Role
from tests.browser.conftest import log_in, watched_page
from tests.support.actors import make_member

pytestmark = pytest.mark.browser

LIGHT, DARK = "rgb(246, 247, 249)", "rgb(17, 21, 28)"


def expect_background(page, colour):
    # Retried until it holds: the heading can show before the stylesheet has applied on a busy machine.
    expect(page.locator("body")).to_have_css("background-color", colour)


def test_the_theme_follows_the_system_and_then_the_choice_which_is_kept(browser, asgi_live_server, approver):
    context = browser.new_context(base_url=asgi_live_server.url, color_scheme="dark")
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        expect_background(page, DARK)
        toggle = page.get_by_role("button", name="Theme: auto")
        toggle.click()
        expect(page.locator("html")).to_have_attribute("data-theme", "light")
        expect_background(page, LIGHT)
        page.goto("/p/default/approvals/")
        # Rendered by the server from the cookie: light from the first paint.
        expect(page.locator("html")).to_have_attribute("data-theme", "light")
        expect_background(page, LIGHT)
        page.get_by_role("button", name="Theme: light").click()
        expect_background(page, DARK)
        page.get_by_role("button", name="Theme: dark").click()
        expect(page.locator("html")).not_to_have_attribute("data-theme", "dark")
        expect_background(page, DARK)  # auto again: the system's dark
        assert problems == []
    finally:
        context.close()


# Every field a person types or picks in: the dark theme's surface and text, whatever its type.
FIELDS = "input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select, textarea"
UNTHEMED = f"""colors => [...document.querySelectorAll({FIELDS!r})]
    .filter(field => field.checkVisibility())
    .map(field => [field.name || field.type, getComputedStyle(field).backgroundColor, getComputedStyle(field).color])
    .filter(([, background, text]) => background !== colors.surface || text !== colors.text)"""
SURFACE, TEXT = "rgb(24, 29, 38)", "rgb(230, 233, 239)"
# Number, date, search, text and password fields, selects and text areas, one page or another.
THEMED_PAGES = [
    "/p/default/",
    "/p/default/approvals/",
    "/p/default/sessions/ask-1/",
    "/p/default/settings/",
    "/p/default/settings/audit/",
    "/p/default/settings/channels/",
    "/p/default/policies/",
    "/accounts/profile/",
]


def test_every_field_takes_the_dark_theme_number_and_date_fields_too(browser, asgi_live_server, transactional_db):
    make_member("admin", Role.ADMIN, password="admin-password-1")
    sessions.ensure(agent="supportAgent", session_id="ask-1", name="A question for finance")
    schema = {"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}, "required": ["days"]}
    client_actions.open_action(
        "ask-1", call_id="q1", name="ask", arguments={}, allowed_responses=["respond"], response_schema=schema
    )
    context = browser.new_context(base_url=asgi_live_server.url, color_scheme="dark")
    try:
        page, problems = watched_page(context)
        log_in(page, "admin", "admin-password-1")
        unthemed, seen = {}, set()
        for path in THEMED_PAGES:
            page.goto(path)
            seen.update(page.eval_on_selector_all(FIELDS, "fields => fields.map(field => field.type)"))
            found = page.evaluate(UNTHEMED, {"surface": SURFACE, "text": TEXT})
            if found:
                unthemed[path] = found
        assert unthemed == {}
        assert {"number", "date", "search", "text", "select-one", "textarea"} <= seen
        assert problems == []
    finally:
        context.close()

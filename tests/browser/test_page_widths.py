"""Every main page, with the demo data and an action the person may not decide, fits a 390 px phone (no sideways
scroll, a compact header) and a 1280 px screen in the light and the dark theme (static/css/historyhub.css)."""

import pytest
from playwright.sync_api import expect

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import policies
from historyhub.demo.demo_data import write_demo
from historyhub.history import client_actions, sessions
from historyhub.projects.models import Group, Role
from tests.browser.conftest import log_in, watched_page
from tests.support.actors import make_member
from tests.support.browser import screenshot

pytestmark = pytest.mark.browser

PAGES = {
    "sessions": "/p/default/",
    "session": "/p/default/sessions/demo-refund-approval/",
    "approvals": "/p/default/approvals/",
    "settings": "/p/default/settings/",
    "audit log": "/p/default/settings/audit/",
    "channels": "/p/default/settings/channels/",
    "policies": "/p/default/policies/",
    "data": "/p/default/settings/erasure/",
    "export and import": "/p/default/settings/data/",
    "notifications": "/accounts/notifications/",
}
LOOKS = {
    "390-light": ({"width": 390, "height": 844}, "light"),
    "390-dark": ({"width": 390, "height": 844}, "dark"),
    "1280-light": ({"width": 1280, "height": 900}, "light"),
    "1280-dark": ({"width": 1280, "height": 900}, "dark"),
}
# The header at most this tall on a phone: the brand, the nav on one row, the account on one more.
PHONE_HEADER_PX = 130


@pytest.fixture
def demo(transactional_db):
    write_demo()
    admin = make_member("admin", Role.ADMIN, password="admin-password-1")
    ApiKey.issue("a key for the nightly export job", scopes="read,write,decide", created_by=admin)
    # An action only finance may decide, which the admin is not in: its card has no buttons, only the reason.
    Group.objects.create(project_id="default", name="finance")
    policies.replace("default", [{"name": "finance only", "approverGroups": ["finance"]}], actor="tests")
    sessions.ensure(agent="supportAgent", session_id="big-1", name="A refund only finance may decide")
    client_actions.open_action("big-1", call_id="r1", name="issue_refund", arguments={"amount": 20000})


@pytest.mark.parametrize("look", LOOKS)
def test_every_main_page_fits_its_width_with_a_compact_header(browser, asgi_live_server, demo, look):
    viewport, theme = LOOKS[look]
    context = browser.new_context(base_url=asgi_live_server.url, viewport=viewport, color_scheme=theme)
    context.add_cookies([{"name": "theme", "value": theme, "url": asgi_live_server.url}])
    try:
        page, problems = watched_page(context)
        log_in(page, "admin", "admin-password-1")
        too_wide, too_tall = {}, {}
        for name, path in PAGES.items():
            page.goto(path)
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
            width = page.evaluate("document.scrollingElement.scrollWidth")
            if width > viewport["width"]:
                too_wide[name] = width
            screenshot(page, f"width-{name.replace(' ', '-')}-{look}", full_page=False)
            if name == "settings":
                # Every column of a key's row, Revoke too, on the screen without scrolling sideways.
                revoke = page.get_by_role("button", name="Revoke").bounding_box()
                assert revoke["x"] >= 0 and revoke["x"] + revoke["width"] <= viewport["width"]
            header = page.locator("header.topbar").bounding_box()["height"]
            if viewport["width"] < 500 and header > PHONE_HEADER_PX:
                too_tall[name] = header
        assert not too_wide and not too_tall, (too_wide, too_tall)
        assert problems == []
    finally:
        context.close()

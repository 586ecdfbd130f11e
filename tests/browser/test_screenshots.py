"""The main pages with the demo data at 1280 px in the light and the dark theme and at 390 px: each fits its width,
and its screenshot is taken. ``make screenshots`` writes them to docs/screenshots/ (SCREENSHOTS_DIR); a test run,
to test-artifacts/screenshots/."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from historyhub.demo.demo_data import write_demo
from tests.browser.conftest import log_in, watched_page
from tests.support.browser import SCREENSHOTS, screenshot

pytestmark = pytest.mark.browser

DIRECTORY = Path(os.environ["SCREENSHOTS_DIR"]).resolve() if os.environ.get("SCREENSHOTS_DIR") else SCREENSHOTS
PAGES = {
    "sessions": "/p/default/",
    "session": "/p/default/sessions/demo-incident-report/",
    "approvals": "/p/default/approvals/",
    "insights": "/p/default/insights/",
}
LOOKS = {
    "1280-light": ({"width": 1280, "height": 900}, "light"),
    "1280-dark": ({"width": 1280, "height": 900}, "dark"),
    "390-light": ({"width": 390, "height": 844}, "light"),
}


@pytest.mark.parametrize("look", LOOKS)
def test_the_main_pages_fit_their_width_in_each_look(browser, asgi_live_server, approver, look):
    write_demo()
    viewport, theme = LOOKS[look]
    context = browser.new_context(base_url=asgi_live_server.url, viewport=viewport, color_scheme=theme)
    context.add_cookies([{"name": "theme", "value": theme, "url": asgi_live_server.url}])
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        for name, path in PAGES.items():
            page.goto(path)
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
            expect(page.locator("main h1").first).to_be_visible()
            # Times in the viewer's zone, as a person sees them (static/js/local-time.js).
            expect(page.locator("time[data-local]:not([data-localised])")).to_have_count(0)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], name
            # What the window shows, not the whole page: the pictures stay small.
            screenshot(page, f"{name}-{look}", directory=DIRECTORY, full_page=False)
        assert problems == []
    finally:
        context.close()

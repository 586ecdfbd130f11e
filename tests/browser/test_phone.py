"""At 390 px the pages fit the phone: nothing wider than the screen but what scrolls inside its own box."""

import pytest
from playwright.sync_api import expect

from historyhub.history import item_log, sessions
from tests.browser.conftest import log_in, watched_page

pytestmark = pytest.mark.browser

EVALUATION = {
    "type": "evaluation",
    "name": "Answer quality with a long descriptive name",
    "metrics": [{"name": "faithfulness to the retrieved documents", "score": 0.91, "threshold": 0.8, "passed": True}],
}


def test_an_evaluation_table_scrolls_inside_its_card_and_the_page_does_not(browser, asgi_live_server, approver):
    sessions.ensure(agent="evalAgent", session_id="eval-1", name="Evaluation run")
    item_log.append("eval-1", [{"role": "user", "content": "Grade this."}, EVALUATION])
    context = browser.new_context(base_url=asgi_live_server.url, viewport={"width": 390, "height": 844})
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        page.goto("/p/default/sessions/eval-1/")
        expect(page.locator(".evaluation .table-scroll")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator(".evaluation .table-scroll").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert problems == []
    finally:
        context.close()

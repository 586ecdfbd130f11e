"""The Insights page on a phone (390 px), in the light theme and the dark one: its charts render without a script
error or a Content-Security-Policy violation, nothing is wider than the screen, and axe-core finds nothing."""

import pytest

from tests.browser.conftest import log_in, watched_page
from tests.browser.test_accessibility import AXE, violations
from tests.insights.seeding import START, action, item, minutes, session

pytestmark = pytest.mark.browser

PAGE = "/p/default/insights/?range=custom&since=2026-09-01&until=2026-09-02&agent=support"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_charts_fit_a_phone_and_pass_wcag_rules(browser, asgi_live_server, approver, theme):
    support = session("s1", agent="support", at=START + minutes(1))
    action(support, "a1", "issue_refund_to_a_customer_account", minutes(0), minutes(2), "approve", by="owner")
    action(support, "a2", "delete_account", minutes(10), minutes(40), "reject", by="owner")
    action(support, "w1", "delete_account", minutes(30))
    item(support, 1, START + minutes(3), {"role": "assistant", "usage": {"inputTokens": 900, "outputTokens": 80}})
    context = browser.new_context(
        base_url=asgi_live_server.url, viewport={"width": 390, "height": 844}, color_scheme=theme
    )
    context.add_cookies([{"name": "theme", "value": theme, "url": asgi_live_server.url}])
    context.add_init_script(path=AXE)
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        found = violations(page, PAGE)
        assert page.locator("svg.chart").count() >= 6
        assert page.locator("#by-action svg a").count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert [(problem["rule"], problem["nodes"]) for problem in found] == []
        assert problems == []
    finally:
        context.close()


def test_a_rejected_bar_opens_the_inbox_with_the_rejected_ones_to_read(context, approver):
    support = session("s1", agent="support", at=START + minutes(1))
    action(support, "a1", "delete_account", minutes(0), minutes(2), "approve", by="owner")
    action(support, "a2", "delete_account", minutes(10), minutes(40), "reject", by="owner")
    action(support, "a3", "delete_account", minutes(20), minutes(5), "reject", by="owner")
    action(support, "w1", "delete_account", minutes(30))
    page, problems = watched_page(context)
    log_in(page, "owner", "owner-password-1")
    # Every console error from here on (the browser asks for /favicon.ico once, at the first page, which has none).
    console_errors = []
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.goto(PAGE)
    page.locator("#outcomes svg a[href*='state=rejected']").click()
    page.wait_for_url("**/approvals/**state=rejected**")
    cards = page.locator("li.approval")
    assert cards.count() == 2
    assert sorted(cards.locator(".approval-title code").all_inner_texts()) == ["a2", "a3"]
    assert page.locator("form.approval-decision, #bulk-decision").count() == 0
    assert page.locator("#id_state").input_value() == "rejected"
    assert problems == []
    assert console_errors == []

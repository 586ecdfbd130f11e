"""The card's three records (proposed, decided, executed) fit a phone stacked and sit side by side on a desktop, in
either theme, without script."""

import pytest
from playwright.sync_api import expect

from historyhub.approvals import deciding
from historyhub.history import client_actions, digests
from historyhub.lib.errors import ArgumentsMismatch
from tests.browser.conftest import log_in, watched_page
from tests.support.actors import as_approver

pytestmark = pytest.mark.browser

SESSION = "refund-1"
# Long, unbroken values: what would push a careless layout wider than the phone.
EDITED = {"amount": 700, "currency": "USD", "note": "x" * 300, "account": "DE" + "8937040044053201300" * 4}


@pytest.fixture
def refused(refund_session):
    """The refund approved with edits, then a claim with other arguments refused: every record has something long."""
    deciding.decide(
        SESSION, "call_refund", decision="approve", comment="Capped.", arguments=EDITED, decider=as_approver()
    )
    with pytest.raises(ArgumentsMismatch):
        client_actions.claim_execution(
            SESSION, "call_refund", arguments_digest=digests.of({"amount": 750}), claimer="api key: agent"
        )
    return SESSION


def records_page(browser, asgi_live_server, width, scheme="light"):
    context = browser.new_context(
        base_url=asgi_live_server.url,
        viewport={"width": width, "height": 900},
        color_scheme=scheme,
        java_script_enabled=False,
    )
    page, problems = watched_page(context)
    log_in(page, "owner", "owner-password-1")
    page.goto(f"/p/default/sessions/{SESSION}/")
    expect(page.locator(".records .record.executed .execution-refused")).to_be_visible()
    return context, page, problems


def boxes(page):
    return [page.locator(f".records .record.{name}").bounding_box() for name in ("proposed", "approved", "executed")]


def test_at_390_px_the_records_stack_and_nothing_is_wider_than_the_screen(browser, asgi_live_server, refused):
    context, page, problems = records_page(browser, asgi_live_server, 390)
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        proposed, approved, executed = boxes(page)
        assert proposed["y"] < approved["y"] < executed["y"]
        for box in (proposed, approved, executed):
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        # No record's own content overflows it (long JSON scrolls inside its <pre>).
        assert page.evaluate(
            "[...document.querySelectorAll('.records .record')].every(r => r.scrollWidth <= r.clientWidth)"
        )
        expect(page.locator(".records .record-diff")).to_contain_text("amount")
        assert problems == []
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_1280_px_the_records_sit_side_by_side_in_either_theme(browser, asgi_live_server, refused, scheme):
    context, page, problems = records_page(browser, asgi_live_server, 1280, scheme)
    try:
        proposed, approved, executed = boxes(page)
        assert proposed["y"] == approved["y"] == executed["y"]
        assert proposed["x"] < approved["x"] < executed["x"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        colours = page.evaluate(
            "(() => { const s = getComputedStyle(document.querySelector('.records .record'));"
            " return [s.color, s.backgroundColor]; })()"
        )
        light_text = colours[0] in ("rgb(230, 233, 239)",)
        assert light_text == (scheme == "dark") and colours[0] != colours[1]
        assert problems == []
    finally:
        context.close()

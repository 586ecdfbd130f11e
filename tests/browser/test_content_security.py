"""In Chromium: a day's decisions keep to the strict Content-Security-Policy (``style-src 'self'``), and the
favicon answers (docs/dashboard.md, "Media": the policy).

A person resizes a comment box before deciding; the browser keeps that size as the box's ``style`` attribute.
htmx used to copy such attributes onto the fresh markup it swaps in (its ``attributesToSettle``), which a
strict policy refuses: "Applying inline style violates … style-src 'self'", once per resized field per swap.
"""

import pytest
from playwright.sync_api import expect

from historyhub.history import client_actions, sessions
from tests.browser.conftest import log_in, watched_page

pytestmark = pytest.mark.browser


@pytest.fixture
def day(transactional_db, approver):
    """Five waiting actions: one to approve with edited arguments, one to reject, one to answer, two for a batch."""
    for session_id, name in [
        ("refund-1", "Refund for a damaged espresso machine"),
        ("invoice-7", "Corrected VAT invoice"),
        ("ask-1", "A question for finance"),
        ("close-ada", "Close Ada's account"),
        ("close-bo", "Close Bo's account"),
    ]:
        sessions.ensure(agent="supportAgent", session_id=session_id, name=name)
    client_actions.open_action("refund-1", call_id="c-refund", name="issue_refund", arguments={"amount": 750})
    client_actions.open_action("invoice-7", call_id="c-invoice", name="send_invoice", arguments={"vat": "DE1"})
    client_actions.open_action(
        "ask-1",
        call_id="c-ask",
        name="ask_finance",
        arguments={"orderId": 7},
        allowed_responses=["respond", "dismiss"],
        response_schema={"type": "object", "properties": {"amount": {"type": "integer", "title": "Amount"}}},
    )
    client_actions.open_action("close-ada", call_id="c-ada", name="close_account", arguments={"id": "ada"})
    client_actions.open_action("close-bo", call_id="c-bo", name="close_account", arguments={"id": "bo"})


def resize_every_comment_box(page):
    """What dragging a text box's corner does: the browser writes the new size into its style attribute."""
    page.locator("textarea").evaluate_all("boxes => boxes.forEach(box => { box.style.height = '7em'; })")


def test_approve_edit_reject_answer_and_a_batch_meet_no_inline_style_refusal(context, day):
    page, problems = watched_page(context)
    refused = []
    page.on("response", lambda response: refused.append(response.url) if response.status >= 400 else None)
    log_in(page, "owner", "owner-password-1")
    page.goto("/p/default/approvals/")

    resize_every_comment_box(page)
    refund = page.locator(".approval", has_text="issue_refund")
    refund.get_by_text("Edit arguments").click()
    refund.locator("textarea[name=arguments]").fill('{"amount": 700}')
    refund.get_by_role("button", name="Approve").click()
    expect(page.locator(".approval", has_text="issue_refund")).to_have_count(0)

    resize_every_comment_box(page)
    invoice = page.locator(".approval", has_text="send_invoice")
    invoice.locator("textarea[name=comment]").fill("Wrong VAT number.")
    invoice.get_by_role("button", name="Reject").click()
    expect(page.locator(".approval", has_text="send_invoice")).to_have_count(0)

    resize_every_comment_box(page)
    ask = page.locator(".approval", has_text="ask_finance")
    ask.get_by_label("Amount").fill("250")
    ask.get_by_role("button", name="Respond").click()
    expect(page.locator(".approval", has_text="ask_finance")).to_have_count(0)

    resize_every_comment_box(page)
    page.get_by_label("Select all 2 on this page").check()
    page.locator("#bulk-decision").get_by_role("button", name="Approve").click()
    resize_every_comment_box(page)
    page.get_by_role("button", name="Confirm: approve 2 actions").click()
    expect(page.get_by_text("Nothing is waiting for a person.")).to_be_visible()

    decided = {action.call_id: action.status for action in client_actions.listing("default")}
    assert decided == {
        "c-refund": "approved",
        "c-invoice": "rejected",
        "c-ask": "answered",
        "c-ada": "approved",
        "c-bo": "approved",
    }
    assert problems == []
    assert refused == []


def test_the_favicon_is_linked_and_answers_at_favicon_ico(page):
    page.goto("/accounts/login/")
    icon = page.locator("link[rel=icon]")
    expect(icon).to_have_attribute("type", "image/svg+xml")
    linked = page.request.get(icon.get_attribute("href"))
    assert (linked.status, linked.headers["content-type"]) == (200, "image/svg+xml")

    answer = page.request.get("/favicon.ico")
    assert answer.status == 200
    assert answer.url.endswith(icon.get_attribute("href"))
    assert answer.body() == linked.body()

"""The approvals inbox in a browser, on a wide screen and a phone: filtering, sorting, the keyboard, and the
expiry countdown (docs/dashboard.md, "The approvals inbox")."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from historyhub.history import client_actions, item_log, sessions
from historyhub.history.models import ClientAction
from tests.support.browser import RequestLog, screenshot

pytestmark = pytest.mark.browser

WIDTHS = [1280, 390]
DECISIONS = "/p/default/approvals/decisions/"


@pytest.fixture
def busy_day(transactional_db):
    """Three waiting actions, oldest first: a refund, an invoice that expires in ten minutes, a parcel redirect."""
    sessions.ensure(
        agent="supportAgent",
        session_id="refund-1",
        name="Refund for a broken machine",
        metadata={"customer": "Ingrid", "order": 4711},
    )
    item_log.append(
        "refund-1",
        [
            {"type": "message", "role": "user", "content": "My machine arrived broken. The box was crushed."},
            {"role": "assistant", "content": [{"type": "output_text", "text": "A refund of $750 needs approval."}]},
        ],
    )
    client_actions.open_action(
        "refund-1",
        call_id="call_refund",
        name="issue_refund",
        arguments={"amount": 750, "currency": "USD", "lines": [{"sku": "ESP-1", "qty": 1}]},
        description="Refund above the **$500** self-service limit",
    )
    sessions.ensure(agent="billingAgent", session_id="invoice-7", name="Corrected VAT invoice")
    client_actions.open_action(
        "invoice-7",
        call_id="call_invoice",
        name="send_invoice",
        arguments={"to": "chen@example.com"},
        expires_at=(timezone.now() + timedelta(minutes=9, seconds=30)).isoformat(),
    )
    sessions.ensure(agent="supportAgent", session_id="parcel-9", name="Redirect a parcel")
    client_actions.open_action(
        "parcel-9", call_id="call_parcel", name="redirect_parcel", arguments={"parcel": "PX-99812"}
    )
    now = timezone.now()
    for minutes, call_id in ((30, "call_refund"), (20, "call_invoice"), (10, "call_parcel")):
        ClientAction.objects.filter(call_id=call_id).update(created_at=now - timedelta(minutes=minutes))


def titles(page):
    return page.locator("#approval-list .approval-title")


def status(session_id, call_id):
    return client_actions.get(session_id, call_id).status


def open_inbox(page, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/p/default/approvals/")
    expect(titles(page)).to_have_count(3)


def show_filters(page, width):
    """On a phone the filters are folded away: open them."""
    panel = page.locator("details.filter-panel")
    if width < 760:
        expect(page.get_by_label("Tool")).to_be_hidden()
        panel.locator("summary").click()
    expect(page.get_by_label("Tool")).to_be_visible()


@pytest.mark.parametrize("width", WIDTHS)
def test_filtering_by_tool_shows_its_actions_only_and_keeps_the_filter_in_the_address(approver_page, busy_day, width):
    page = approver_page
    open_inbox(page, width)
    show_filters(page, width)
    page.get_by_label("Tool").select_option("issue_refund")
    expect(titles(page)).to_have_count(1)
    expect(titles(page)).to_have_text("issue_refund call_refund")
    expect(page).to_have_url(re.compile(r"/p/default/approvals/\?tool=issue_refund$"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"inbox-filtered-{width}")
    page.reload()
    expect(titles(page)).to_have_text("issue_refund call_refund")
    expect(page.get_by_label("Tool")).to_have_value("issue_refund")


@pytest.mark.parametrize("width", WIDTHS)
def test_sorting_by_expiry_puts_the_action_that_expires_first_on_top(approver_page, busy_day, width):
    page = approver_page
    open_inbox(page, width)
    expect(titles(page).first).to_have_text("issue_refund call_refund")
    show_filters(page, width)
    page.get_by_label("Sort").select_option("expiring")
    expect(titles(page).first).to_have_text("send_invoice call_invoice")
    expect(page).to_have_url(re.compile(r"\?sort=expiring$"))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_expiry_counts_down_beside_the_absolute_time(approver_page, busy_day, width):
    page = approver_page
    open_inbox(page, width)
    expiry = page.locator(".approval", has_text="send_invoice").locator(".expiry")
    expect(expiry.locator(".countdown")).to_have_text(re.compile(r"^\(in (9|10) min\)$"))
    expect(expiry.locator("time")).to_have_attribute("datetime", re.compile(r"Z$"))
    expect(expiry).to_contain_text("expires")
    screenshot(page, f"inbox-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_j_and_k_move_between_cards_and_a_approves_the_focused_one(approver_page, busy_day, width):
    page = approver_page
    open_inbox(page, width)
    cards = page.locator("#approval-list li.approval")
    for key, focused in (("j", 0), ("j", 1), ("j", 2), ("j", 2), ("k", 1)):
        page.keyboard.press(key)
        expect(cards.nth(focused)).to_be_focused()
    page.keyboard.press("a")
    expect(page.get_by_text("Approved 1 action:")).to_be_visible()
    expect(titles(page)).to_have_count(2)
    assert status("invoice-7", "call_invoice") == "approved"
    assert status("refund-1", "call_refund") == "waiting" and status("parcel-9", "call_parcel") == "waiting"
    # The card that took its place has the focus, so the keys go on from there.
    expect(cards.nth(1)).to_be_focused()
    expect(cards.nth(1)).to_contain_text("redirect_parcel")


@pytest.mark.parametrize("width", WIDTHS)
def test_r_focuses_the_comment_box_where_enter_is_a_new_line_and_decides_nothing(
    approver_page, busy_day, width, asgi_live_server
):
    page = approver_page
    log = RequestLog(page)
    open_inbox(page, width)
    page.keyboard.press("j")
    page.keyboard.press("r")
    comment = page.get_by_label("Comment on issue_refund")
    expect(comment).to_be_focused()
    comment.press_sequentially("Already refunded")
    comment.press("Enter")
    # Typed in the box, these are letters, not shortcuts.
    comment.press_sequentially("aj")
    expect(comment).to_have_value("Already refunded\naj")
    page.locator(".approval", has_text="issue_refund").get_by_role("button", name="Reject").click()
    expect(page.get_by_text("Rejected 1 action: issue_refund (call_refund)")).to_be_visible()
    [sent] = log.to(f"{asgi_live_server.url}{DECISIONS}", "POST")
    assert sent.url.endswith("/refund-1/call_refund/")
    rejected = client_actions.get("refund-1", "call_refund")
    assert rejected.status == "rejected" and rejected.comment == "Already refunded\naj"
    assert status("invoice-7", "call_invoice") == "waiting" and status("parcel-9", "call_parcel") == "waiting"


def test_question_mark_lists_the_shortcuts(approver_page, busy_day):
    page = approver_page
    open_inbox(page, 1280)
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Approve the focused action")
    # A shortcut pressed while the list is behind the dialog does nothing.
    page.keyboard.press("j")
    page.keyboard.press("a")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    assert [action.status for action in ClientAction.objects.all()] == ["waiting"] * 3

import json
from urllib.parse import parse_qs

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import deciding
from historyhub.history import client_actions, sessions
from tests.support.actors import as_approver
from tests.support.browser import LIVE_TIMEOUT_MS, RequestLog, screenshot

pytestmark = pytest.mark.browser


def test_an_approver_approves_with_a_comment_and_the_api_reads_it_back(approver_page, refund_session):
    page = approver_page
    page.goto("/p/default/sessions/refund-1/")
    expect(page.locator("#inbox-count")).to_have_text("1")
    card = page.locator(".entry-client_action")
    expect(card).to_contain_text("waiting")

    card.get_by_label("Arguments").fill(json.dumps({"amount": 700, "currency": "USD"}, indent=2))
    card.get_by_label("Comment").fill("The photo shows the damage. Refund 700.")
    card.get_by_role("button", name="Approve").click()

    expect(card).to_contain_text("approved")
    expect(card).to_contain_text("by owner")
    expect(card).to_contain_text("The photo shows the damage. Refund 700.")
    expect(card.get_by_text("Requested arguments")).to_be_visible()
    expect(card.get_by_text("Approved arguments")).to_be_visible()
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    expect(page.locator("#inbox-count")).to_have_text("0")
    expect(page.locator("#session-header")).not_to_contain_text("waiting for a person")
    screenshot(page, "timeline")

    _, key = ApiKey.issue("browser test", "write")
    response = page.request.get(
        "/api/v1/sessions/refund-1/client-actions/call_refund", headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status == 200
    action = response.json()
    assert action["status"] == "approved" and action["decision"] == "approve"
    assert action["resolvedBy"] == "owner"
    assert action["comment"] == "The photo shows the damage. Refund 700."
    assert action["arguments"] == {"amount": 750, "currency": "USD"}
    assert action["approvedArguments"] == {"amount": 700, "currency": "USD"}


def test_arguments_that_are_not_json_get_a_clear_error_and_nothing_changes(approver_page, refund_session):
    page = approver_page
    page.goto("/p/default/sessions/refund-1/")
    card = page.locator(".entry-client_action")
    card.get_by_label("Arguments").fill('{"amount": 700')
    card.get_by_role("button", name="Approve").click()
    expect(card.get_by_role("alert")).to_contain_text("The arguments are not valid JSON")
    expect(card.get_by_label("Arguments")).to_have_value('{"amount": 700')
    assert client_actions.get("refund-1", "call_refund").status == "waiting"
    expect(page.locator("#inbox-count")).to_have_text("1")


@pytest.fixture
def inbox(refund_session):
    sessions.ensure(agent="billingAgent", session_id="invoice-7", name="Corrected VAT invoice")
    client_actions.open_action(
        "invoice-7", call_id="call_invoice", name="send_invoice", arguments={"to": "chen@example.com", "vat": "DE123"}
    )
    sessions.ensure(agent="supportAgent", session_id="parcel-9", name="Redirect a parcel")
    client_actions.open_action(
        "parcel-9",
        call_id="call_parcel",
        name="redirect_parcel",
        arguments={"parcel": "PX-99812", "to": "Office, 12 Quay Street"},
    )


PAID = "No - this customer already paid, do not send"
DECISIONS = reverse("dashboard:decide_selected", args=["default"])


def status(session_id, call_id):
    return client_actions.get(session_id, call_id).status


def reject_the_parcel(page):
    """A decision to wait for: a request Enter had sent would have gone out before this one's answer came."""
    page.locator(".approval").filter(has_text="redirect_parcel").get_by_role("button", name="Reject").click()
    expect(page.get_by_text("Rejected 1 action:")).to_be_visible()


def decisions_sent(log, server):
    """The decisions the page sent, one card's or several: (the path after DECISIONS, the form sent)."""
    prefix = f"{server.url}{DECISIONS}"
    return [(request.url.removeprefix(prefix), parse_qs(request.post_data)) for request in log.to(prefix, "POST")]


def test_enter_in_a_comment_or_on_a_checkbox_of_the_approvals_page_decides_nothing(
    approver_page, inbox, asgi_live_server
):
    page = approver_page
    log = RequestLog(page)
    page.goto("/p/default/approvals/")
    comment = page.get_by_label("Comment on send_invoice")
    comment.fill(PAID)
    comment.press("Enter")
    expect(comment).to_have_value(f"{PAID}\n")
    bulk = page.get_by_label("Comment for the selected actions")
    bulk.fill(PAID)
    bulk.press("Enter")
    expect(bulk).to_have_value(f"{PAID}\n")
    # Chromium answers Enter on a checkbox with the first enabled submit button of its form.
    box = page.get_by_label("Select send_invoice in")
    box.check()
    box.press("Enter")
    reject_the_parcel(page)
    [(action, sent)] = decisions_sent(log, asgi_live_server)
    assert (action, sent["decision"]) == ("parcel-9/call_parcel/", ["reject"])
    assert status("invoice-7", "call_invoice") == "waiting" and status("refund-1", "call_refund") == "waiting"


def test_without_javascript_enter_decides_nothing_either(no_script_page, inbox):
    page = no_script_page
    page.goto("/p/default/approvals/")
    comment = page.get_by_label("Comment on send_invoice")
    comment.fill(PAID)
    comment.press("Enter")
    expect(comment).to_have_value(f"{PAID}\n")
    # Here Enter on a checkbox sends the form with no decision button: the server decides nothing.
    page.get_by_label("Select send_invoice in").check()
    page.get_by_label("Select send_invoice in").press("Enter")
    expect(page.get_by_text("Nothing was decided: press Approve, Reject or Dismiss to decide.")).to_be_visible()
    assert status("invoice-7", "call_invoice") == "waiting" and status("refund-1", "call_refund") == "waiting"
    page.get_by_label("Comment on send_invoice").fill("Wrong VAT number.")
    page.locator(".approval").filter(has_text="send_invoice").get_by_role("button", name="Reject").click()
    expect(page.get_by_text("Rejected 1 action:")).to_be_visible()
    assert client_actions.get("invoice-7", "call_invoice").comment == "Wrong VAT number."


def test_enter_in_the_comment_on_a_timeline_card_is_a_new_line_not_a_decision(approver_page, refund_session):
    page = approver_page
    page.goto("/p/default/sessions/refund-1/")
    card = page.locator(".entry-client_action")
    comment = card.get_by_label("Comment")
    comment.fill(PAID)
    comment.press("Enter")
    comment.press_sequentially("Ask finance.")
    card.get_by_role("button", name="Reject").click()
    expect(card).to_contain_text("rejected")
    rejected = client_actions.get("refund-1", "call_refund")
    assert rejected.status == "rejected" and rejected.comment == f"{PAID}\nAsk finance."


def test_an_approver_rejects_one_action_from_the_approvals_page(approver_page, inbox):
    page = approver_page
    page.get_by_role("link", name="Approvals").click()
    expect(page).to_have_url("/p/default/approvals/")
    items = page.locator(".approval")
    expect(items).to_have_count(3)
    expect(items.first).to_contain_text("request_human_approval")
    expect(items.first).to_contain_text("Refund for a broken espresso machine")
    screenshot(page, "approvals")

    invoice = items.filter(has_text="send_invoice")
    invoice.get_by_label("Comment on send_invoice").fill("Wrong VAT number.")
    invoice.get_by_role("button", name="Reject").click()

    expect(page.get_by_text("Rejected 1 action:")).to_be_visible()
    expect(items).to_have_count(2)
    expect(page.locator("#inbox-count")).to_have_text("2")
    rejected = client_actions.get("invoice-7", "call_invoice")
    assert rejected.status == "rejected" and rejected.resolved_by == "owner"
    assert rejected.comment == "Wrong VAT number."


def test_an_approver_approves_several_actions_together(approver_page, inbox):
    page = approver_page
    page.goto("/p/default/approvals/")
    bulk = page.locator("#bulk-decision")
    expect(bulk.get_by_role("button", name="Approve")).to_be_disabled()
    page.get_by_label("Select request_human_approval in").check()
    page.get_by_label("Select redirect_parcel in").check()
    expect(page.locator("#selected-count")).to_have_text("2 selected")
    bulk.get_by_placeholder("Comment for the selected actions (optional)").fill("Both fine.")
    bulk.get_by_role("button", name="Approve").click()
    confirmation = page.get_by_role("region", name="Approve 2 actions?")
    expect(confirmation.get_by_role("listitem")).to_have_count(2)
    assert client_actions.get("refund-1", "call_refund").status == "waiting"
    confirmation.get_by_role("button", name="Confirm: approve 2 actions").click()

    expect(page.get_by_text("Approved 2 actions:")).to_be_visible()
    expect(confirmation).to_have_count(0)
    expect(page.locator(".approval")).to_have_count(1)
    expect(page.locator(".approval")).to_contain_text("send_invoice")
    expect(page.locator("#inbox-count")).to_have_text("1")
    for session_id, call_id in (("refund-1", "call_refund"), ("parcel-9", "call_parcel")):
        action = client_actions.get(session_id, call_id)
        assert action.status == "approved" and action.comment == "Both fine." and action.resolved_by == "owner"


def test_select_all_ticks_every_action(approver_page, inbox):
    page = approver_page
    page.goto("/p/default/approvals/")
    page.get_by_label("Select all 3 on this page").check()
    expect(page.locator("#selected-count")).to_have_text("3 selected")
    page.locator("#bulk-decision").get_by_role("button", name="Reject").click()
    page.get_by_role("button", name="Confirm: reject 3 actions").click()
    expect(page.get_by_text("Nothing is waiting for a person.")).to_be_visible()
    expect(page.locator("#inbox-count")).to_have_text("0")


def test_the_approvals_page_shows_an_action_the_moment_an_agent_asks_and_drops_one_decided_elsewhere(
    approver_page, inbox
):
    page = approver_page
    page.goto("/p/default/approvals/")
    items = page.locator(".approval")
    expect(items).to_have_count(3)
    page.get_by_label("Comment on send_invoice").fill("typing while others work")

    client_actions.open_action("parcel-9", call_id="call_label", name="print_label", arguments={"parcel": "PX-1"})
    expect(items).to_have_count(4, timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#inbox-count")).to_have_text("4")

    deciding.decide("refund-1", "call_refund", decision="approve", decider=as_approver("someone else"))
    expect(items).to_have_count(3, timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#inbox-count")).to_have_text("3")
    expect(page.get_by_label("Comment on send_invoice")).to_have_value("typing while others work")

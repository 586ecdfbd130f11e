"""Deciding several actions on the approvals page: a confirmation lists exactly what will be decided,
and the confirmed decision decides exactly that (historyhub/approvals/batch.py, historyhub/dashboard/batch_page.py)."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from historyhub.approvals import deciding
from historyhub.dashboard.inbox_page import APPROVALS_PAGE_SIZE
from historyhub.history import client_actions, sessions
from tests.support.actors import as_approver, confirm_batch, post
from tests.support.html import parse

URL = reverse("dashboard:approvals", args=["default"])
DECIDE = reverse("dashboard:decide_selected", args=["default"])


@pytest.fixture
def inbox(db):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Close Ada's account")
    sessions.ensure(agent="billingAgent", session_id="billing-2")
    client_actions.open_action("support-1", call_id="c1", name="delete_account", arguments={"hard": True})
    client_actions.open_action("support-1", call_id="c2", name="send_email", arguments={"to": "ada@example.com"})
    client_actions.open_action("billing-2", call_id="c3", name="issue_refund", arguments={"amount": 20})


def waiting():
    return sorted(action.call_id for action in client_actions.listing("default", status="waiting"))


def confirmation(response):
    return parse(response).one("section.confirmation")


def ask(client, selected, decision="approve", htmx=True, **fields):
    """Decide several actions: the answer is the confirmation."""
    return post(client, DECIDE, {"selected": selected, "decision": decision, **fields}, htmx=htmx)


def test_deciding_several_lists_each_with_its_session_and_decides_nothing_until_confirmed(approver_client, inbox):
    response = ask(approver_client, ["support-1/c1", "support-1/c2"], comment="Both\r\nfine.")
    assert response.status_code == 200 and waiting() == ["c1", "c2", "c3"]
    # htmx puts it above the list, where a live refresh of the list leaves it be.
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("#approval-confirmation", "innerHTML show:top")
    shown = confirmation(response)
    assert shown.text("h2") == "Approve 2 actions?"
    items = shown.all("ol.confirmation-items li")
    assert [item.text(".confirmation-title strong") for item in items] == ["delete_account", "send_email"]
    assert [item.link("Close Ada's account")["href"] for item in items] == ["/p/default/sessions/support-1/"] * 2
    assert shown.text(".confirmation-comment q") == "Both fine."
    assert shown.button("Confirm: approve 2 actions")
    assert shown.link("Cancel")["href"] == f"{URL}?page=1"


def test_actions_that_look_destructive_are_called_out_with_why(approver_client, inbox):
    response = ask(approver_client, ["support-1/c1", "support-1/c2", "billing-2/c3"])
    shown = confirmation(response)
    assert shown.text(".notice.warning") == "1 of them looks destructive."
    items = {item.text("strong"): item for item in shown.all("ol.confirmation-items li")}
    assert items["delete_account"].text(".badge.destructive") == "looks destructive: delete, hard: true"
    assert "destructive" in items["delete_account"].classes
    # A refund is not called out for its word alone (docs/dashboard.md, "What looks destructive").
    assert not items["issue_refund"].all(".badge.destructive") and not items["send_email"].all(".badge.destructive")
    assert items["delete_account"].text(".arguments-summary") == '{"hard":true}'


def test_long_arguments_are_summarised_in_200_characters_ending_in_an_ellipsis(approver_client, inbox):
    client_actions.open_action("billing-2", call_id="c4", name="send_invoice", arguments={"lines": ["x" * 40] * 20})
    shown = confirmation(ask(approver_client, ["billing-2/c3", "billing-2/c4"]))
    summary = shown.all(".arguments-summary")[1].text()
    assert len(summary) == 200 and summary == client_actions.get("billing-2", "c4").arguments_json[:199] + "…"


def test_confirming_decides_exactly_the_listed_actions_with_the_comment(approver_client, inbox):
    asked = ask(approver_client, ["support-1/c1", "billing-2/c3"], "reject", comment="Not\r\nthese.")
    page = parse(confirm_batch(approver_client, asked))
    assert page.text("#approval-messages") == (
        "Rejected 2 actions: issue_refund (c3) in billing-2, delete_account (c1) in Close Ada's account."
    )
    # The answer empties the confirmation, out of band, and shows the list as it is now.
    assert (
        page.one("#approval-confirmation")["hx-swap-oob"] == "true" and not page.one("#approval-confirmation").children
    )
    assert waiting() == ["c2"]
    for call_id in ("c1", "c3"):
        action = client_actions.get("support-1" if call_id == "c1" else "billing-2", call_id)
        assert action.status == "rejected" and action.comment == "Not\nthese." and action.resolved_by == "owner"


def test_without_javascript_the_confirmation_is_a_page_of_its_own_and_confirming_goes_back_to_the_list(
    approver_client, inbox
):
    asked = ask(approver_client, ["support-1/c1", "support-1/c2"], htmx=False)
    assert asked.status_code == 200 and waiting() == ["c1", "c2", "c3"]
    page = parse(asked)
    assert page.text("title").startswith("Confirm") and page.one("section.confirmation")
    response = confirm_batch(approver_client, asked, htmx=False)
    assert response.status_code == 302 and response["Location"] == f"{URL}?page=1"
    assert parse(approver_client.get(response["Location"])).text(".messages") == (
        "Approved 2 actions: delete_account (c1) in Close Ada's account, send_email (c2) in Close Ada's account."
    )
    assert waiting() == ["c3"]


def test_a_single_action_is_decided_at_its_button_without_a_confirmation(approver_client, inbox):
    response = ask(approver_client, "billing-2/c3")
    assert parse(response).text(
        "#approval-messages"
    ) == "Approved 1 action: issue_refund (c3) in billing-2." and waiting() == ["c1", "c2"]


def test_selected_actions_no_longer_waiting_are_left_out_and_said_so(approver_client, inbox):
    deciding.decide("support-1", "c2", decision="reject", decider=as_approver("colleague"))
    response = ask(approver_client, ["support-1/c1", "support-1/c2", "billing-2/c3"])
    shown = confirmation(response)
    assert shown.text("h2") == "Approve 2 actions?"
    assert shown.text(".notice:not(.warning)") == "1 of the selected actions is no longer waiting and is left out."
    assert [item.text("strong") for item in shown.all("ol.confirmation-items li")] == ["delete_account", "issue_refund"]
    assert confirmation(response).one("form").submitted()["selected"] == ["billing-2/c3", "support-1/c1"]


def test_when_what_waits_changes_before_confirming_it_says_so_lists_it_again_and_decides_nothing(
    approver_client, inbox
):
    asked = ask(approver_client, ["support-1/c1", "support-1/c2"])
    deciding.decide("support-1", "c2", decision="reject", decider=as_approver("colleague"))
    again = confirm_batch(approver_client, asked)
    assert again.status_code == 409 and waiting() == ["c1", "c3"]
    shown = confirmation(again)
    assert shown.text(".notice.error").startswith("What is waiting changed since you were asked.")
    assert [item.text("strong") for item in shown.all("ol.confirmation-items li")] == ["delete_account"]
    parse(confirm_batch(approver_client, again))
    assert waiting() == ["c3"]


@pytest.fixture
def many(db):
    """More waiting actions than a page holds, oldest first."""
    sessions.ensure(agent="bulk", session_id="many")
    for number in range(APPROVALS_PAGE_SIZE + 2):
        client_actions.open_action("many", call_id=f"c{number:03d}", name="step", arguments={"n": number})


def test_select_all_says_it_takes_this_page_and_offers_every_waiting_action(approver_client, many):
    bulk = parse(approver_client.get(URL)).one("form#bulk-decision")
    assert bulk.text("label:has(#select-all)") == f"Select all {APPROVALS_PAGE_SIZE} on this page"
    every = bulk.one("#all-waiting")
    assert (every["name"], every["value"]) == ("all_waiting", "true")
    assert bulk.text("label:has(#all-waiting)") == f"Select all {APPROVALS_PAGE_SIZE + 2} waiting actions"


def test_select_all_on_a_page_that_holds_every_action_offers_nothing_more(approver_client, inbox):
    bulk = parse(approver_client.get(URL)).one("form#bulk-decision")
    assert bulk.text("label:has(#select-all)") == "Select all 3 on this page" and not bulk.all("#all-waiting")


def test_every_waiting_action_on_every_page_is_listed_and_decided_once_confirmed(approver_client, many):
    asked = ask(approver_client, [], "reject", all_waiting="true", page="2")
    shown = confirmation(asked)
    assert shown.text("h2") == f"Reject {APPROVALS_PAGE_SIZE + 2} actions?"
    assert len(shown.all("ol.confirmation-items li")) == APPROVALS_PAGE_SIZE + 2
    assert "selected" not in shown.one("form").submitted()
    page = parse(confirm_batch(approver_client, asked))
    assert page.text("#approval-messages") == (
        f"Rejected {APPROVALS_PAGE_SIZE + 2} actions: step (c000) in many, step (c001) in many, step (c002) in many"
        f" and {APPROVALS_PAGE_SIZE - 1} more."
    )
    assert waiting() == []


def test_an_action_that_starts_waiting_before_every_waiting_one_is_confirmed_is_shown_before_it_is_decided(
    approver_client, many
):
    asked = ask(approver_client, [], all_waiting="true")
    client_actions.open_action("many", call_id="late", name="wipe_disk", arguments={})
    again = confirm_batch(approver_client, asked)
    assert again.status_code == 409 and len(waiting()) == APPROVALS_PAGE_SIZE + 3
    items = confirmation(again).all("ol.confirmation-items li")
    assert len(items) == APPROVALS_PAGE_SIZE + 3 and items[-1].text("strong") == "wipe_disk"
    confirm_batch(approver_client, again)
    assert waiting() == []


def test_a_confirmation_for_nothing_still_waiting_offers_only_cancel(approver_client, inbox):
    for call_id in ("c1", "c2"):
        deciding.decide("support-1", call_id, decision="reject", decider=as_approver("colleague"))
    shown = confirmation(ask(approver_client, ["support-1/c1", "support-1/c2"]))
    assert shown.text("h2") == "Nothing to approve" and not shown.buttons("Confirm: approve 0 actions")
    assert not shown.all("button[name=decision]") and shown.link("Cancel")


def test_a_viewers_forged_confirmation_is_forbidden(viewer_client, inbox):
    response = ask(viewer_client, [], all_waiting="true", confirmed="true")
    assert response.status_code == 403 and waiting() == ["c1", "c2", "c3"]


def test_the_batch_bar_offers_the_decisions_the_admin_offers_and_its_dismiss_decides_several(approver_client, inbox):
    bar = parse(approver_client.get(URL)).one("form#bulk-decision")
    offered = [(button["value"], button.text()) for button in bar.all("button[name=decision]")]
    assert offered == [("approve", "Approve"), ("reject", "Reject"), ("dismiss", "Dismiss")]
    operator = Client()
    operator.force_login(User.objects.create_superuser("root", password="root-password-1"))
    admin_page = parse(operator.get("/admin/history/clientaction/"))
    admin_actions = [option["value"] for option in admin_page.all("select[name=action] option") if option["value"]]
    assert admin_actions[-3:] == [value for value, _ in offered]

    for call_id in ("n1", "n2"):
        allowed = ["approve", "reject", "dismiss"]
        client_actions.open_action("billing-2", call_id=call_id, name="notify", arguments={}, allowed_responses=allowed)
    asked = ask(approver_client, ["billing-2/n1", "billing-2/n2"], "dismiss")
    assert confirmation(asked).button("Confirm: dismiss 2 actions")
    page = parse(confirm_batch(approver_client, asked))
    assert page.text("#approval-messages") == "Dismissed 2 actions: notify (n1) in billing-2, notify (n2) in billing-2."
    assert waiting() == ["c1", "c2", "c3"]
    assert {client_actions.get("billing-2", call_id).status for call_id in ("n1", "n2")} == {"dismissed"}

import pytest
from playwright.sync_api import expect

from historyhub.dashboard.inbox_page import APPROVALS_PAGE_SIZE
from historyhub.history import client_actions, sessions
from tests.support.browser import screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def accounts(transactional_db):
    sessions.ensure(agent="supportAgent", session_id="close-ada", name="Close Ada's account")
    sessions.ensure(agent="supportAgent", session_id="close-bo", name="Close Bo's account")
    client_actions.open_action("close-ada", call_id="c1", name="delete_account", arguments={"hard": True})
    client_actions.open_action("close-bo", call_id="c2", name="delete_account", arguments={"hard": True})
    client_actions.open_action("close-bo", call_id="c3", name="send_goodbye_email", arguments={"to": "bo@example.com"})


def waiting():
    return sorted(action.call_id for action in client_actions.listing("default", status="waiting"))


ADA, BO, BO_MAIL = (
    "Select delete_account in Close Ada's account",
    "Select delete_account in Close Bo's account",
    "Select send_goodbye_email in Close Bo's account",
)


def ask_to(page, decision, *labels):
    """Tick these actions on the approvals page and press the bulk bar's decision button."""
    page.goto("/p/default/approvals/")
    for label in labels:
        page.get_by_label(label).check()
    page.locator("#bulk-decision").get_by_role("button", name=decision).click()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_batch_approval_lists_what_it_decides_calls_out_the_destructive_and_waits_for_confirm(
    approver_page, accounts, width
):
    page = approver_page
    page.set_viewport_size({"width": width, "height": 900})
    ask_to(page, "Approve", "Select all 3 on this page")

    confirmation = page.get_by_role("region", name="Approve 3 actions?")
    expect(confirmation).to_be_in_viewport()
    items = confirmation.get_by_role("listitem")
    expect(items).to_have_count(3)
    expect(items.nth(0)).to_contain_text("delete_account")
    expect(items.nth(0)).to_contain_text("Close Ada's account")
    expect(items.nth(0).locator(".badge.destructive")).to_have_text("looks destructive: delete, hard: true")
    expect(items.nth(2).locator(".badge.destructive")).to_have_count(0)
    expect(confirmation).to_contain_text("2 of them look destructive.")
    confirm = confirmation.get_by_role("button", name="Confirm: approve 3 actions")
    box = confirm.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    screenshot(page, f"batch-confirmation-{width}")
    assert waiting() == ["c1", "c2", "c3"]

    confirm.click()
    expect(page.get_by_text("Approved 3 actions:")).to_be_visible()
    expect(page.get_by_text("Nothing is waiting for a person.")).to_be_visible()
    assert waiting() == []


def test_cancel_decides_nothing_and_keeps_the_selection(approver_page, accounts):
    page = approver_page
    ask_to(page, "Reject", ADA, BO)
    confirmation = page.get_by_role("region", name="Reject 2 actions?")
    confirmation.get_by_role("link", name="Cancel").click()
    expect(confirmation).to_have_count(0)
    expect(page.locator("#selected-count")).to_have_text("2 selected")
    assert waiting() == ["c1", "c2", "c3"]


def test_without_javascript_a_batch_is_confirmed_on_a_page_of_its_own(no_script_page, accounts):
    page = no_script_page
    ask_to(page, "Reject", ADA, BO_MAIL)
    expect(page).to_have_url("/p/default/approvals/decisions/")
    expect(page.get_by_role("heading", name="Reject 2 actions?")).to_be_visible()
    assert waiting() == ["c1", "c2", "c3"]
    page.get_by_role("button", name="Confirm: reject 2 actions").click()
    expect(page).to_have_url("/p/default/approvals/?page=1")
    expect(page.get_by_text("Rejected 2 actions:")).to_be_visible()
    assert waiting() == ["c2"]


def test_select_all_waiting_actions_takes_every_page(approver_page, transactional_db):
    sessions.ensure(agent="bulk", session_id="many")
    total = APPROVALS_PAGE_SIZE + 3
    for number in range(total):
        client_actions.open_action("many", call_id=f"c{number:03d}", name="step", arguments={"n": number})
    page = approver_page
    page.goto("/p/default/approvals/")
    expect(page.get_by_label(f"Select all {APPROVALS_PAGE_SIZE} on this page")).to_be_visible()
    page.get_by_label(f"Select all {total} waiting actions").check()
    expect(page.locator("#selected-count")).to_have_text(f"All {total} waiting actions selected")
    page.locator("#bulk-decision").get_by_role("button", name="Reject").click()
    confirmation = page.get_by_role("region", name=f"Reject {total} actions?")
    expect(confirmation.get_by_role("listitem")).to_have_count(total)
    expect(confirmation).to_contain_text("Every action waiting now, on every page")
    confirmation.get_by_role("button", name=f"Confirm: reject {total} actions").click()
    expect(page.get_by_text(f"Rejected {total} actions:")).to_be_visible()
    assert waiting() == []

import pytest
from playwright.sync_api import expect

from historyhub.dashboard.sessions_page import SESSIONS_PAGE_SIZE
from historyhub.history import client_actions, item_log, sessions
from tests.support.browser import LIVE_TIMEOUT_MS, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def fleet(transactional_db):
    sessions.ensure(
        agent="supportAgent",
        session_id="support-espresso",
        name="Refund for a broken espresso machine",
        metadata={"customer": "Ingrid"},
    )
    item_log.append("support-espresso", [{"role": "user", "content": "The espresso machine arrived broken."}])
    client_actions.open_action(
        "support-espresso", call_id="call_1", name="request_human_approval", arguments={"amount": 750}
    )
    sessions.ensure(agent="researchAgent", session_id="research-batteries", name="Brief: battery recycling")
    item_log.append(
        "research-batteries",
        [
            {"role": "user", "content": "Summarise EU battery rules."},
            {"role": "assistant", "content": "Five points on batteries."},
        ],
    )
    sessions.update("research-batteries", status="completed", run_status="completed")
    sessions.ensure(agent="codingAgent", session_id="coding-dates", name="Fix the flaky date test")
    item_log.append("coding-dates", [{"role": "user", "content": "The date test fails at midnight."}])


def test_searching_narrows_the_table_as_you_type_and_a_session_opens(fleet, approver_page):
    page = approver_page
    rows = page.locator("table.sessions tbody tr")
    expect(rows).to_have_count(3)
    screenshot(page, "sessions")

    page.get_by_placeholder("Search sessions and messages").press_sequentially("espresso", delay=30)
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Refund for a broken espresso machine")
    expect(page).to_have_url("/p/default/?q=espresso")

    page.get_by_role("link", name="Refund for a broken espresso machine").click()
    expect(page).to_have_url("/p/default/sessions/support-espresso/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Refund for a broken espresso machine")
    expect(page.locator("#timeline")).to_contain_text("The espresso machine arrived broken.")

    page.go_back()
    expect(page).to_have_url("/p/default/?q=espresso")
    expect(page.get_by_placeholder("Search sessions and messages")).to_have_value("espresso")
    expect(rows).to_have_count(1)


def test_the_filters_update_the_table(fleet, approver_page):
    page = approver_page
    rows = page.locator("table.sessions tbody tr")
    page.get_by_label("Waiting on a person").check()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("support-espresso")
    page.get_by_label("Waiting on a person").uncheck()
    page.locator("select[name=status]").select_option("completed")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("research-batteries")
    expect(page).to_have_url("/p/default/?status=completed")


def test_pagination_moves_between_pages_in_place(approver_page, transactional_db):
    for number in range(SESSIONS_PAGE_SIZE + 3):
        sessions.ensure(agent="bulk", session_id=f"bulk-{number:02d}")
    page = approver_page
    page.reload()
    rows = page.locator("table.sessions tbody tr")
    expect(rows).to_have_count(SESSIONS_PAGE_SIZE)
    page.get_by_role("link", name="Next ›").click()
    expect(rows).to_have_count(3)
    expect(page.locator(".page-of")).to_have_text("Page 2 of 2")
    expect(page).to_have_url("/p/default/?page=2")


def test_the_table_shows_a_new_session_on_its_own(fleet, approver_page):
    page = approver_page
    rows = page.locator("table.sessions tbody tr")
    expect(rows).to_have_count(3)
    sessions.ensure(agent="supportAgent", session_id="support-new", name="A brand-new conversation")
    expect(rows.first).to_contain_text("A brand-new conversation", timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#inbox-count")).to_have_text("1")

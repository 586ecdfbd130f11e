import pytest
from playwright.sync_api import expect

from historyhub.dashboard.timeline_cards import CHUNK_SIZE
from historyhub.history import client_actions, item_log, sessions
from tests.support.browser import LIVE_TIMEOUT_MS

pytestmark = pytest.mark.browser


def test_load_older_brings_the_previous_items_in_place(approver_page, transactional_db):
    sessions.ensure(agent="supportAgent", session_id="long")
    item_log.append("long", [{"role": "user", "content": f"message number {n}"} for n in range(1, 2 * CHUNK_SIZE + 6)])
    page = approver_page
    page.goto("/p/default/sessions/long/")
    bubbles = page.locator("#timeline .entry-message")
    expect(bubbles).to_have_count(CHUNK_SIZE)
    expect(bubbles.first).to_contain_text(f"message number {CHUNK_SIZE + 6}")

    page.get_by_role("link", name="Load older").click()
    expect(bubbles).to_have_count(2 * CHUNK_SIZE)
    expect(bubbles.first).to_contain_text("message number 6")
    page.get_by_role("link", name="Load older").click()
    expect(bubbles).to_have_count(2 * CHUNK_SIZE + 5)
    expect(bubbles.first).to_contain_text("message number 1")
    expect(page.get_by_role("link", name="Load older")).to_have_count(0)
    expect(page.get_by_text("Start of the session")).to_be_visible()
    # Loading older items stays on the same page: the address and the newest items are unchanged.
    expect(page).to_have_url("/p/default/sessions/long/")
    expect(bubbles.last).to_contain_text(f"message number {2 * CHUNK_SIZE + 5}")


def test_the_archived_history_before_a_compaction_can_be_shown(approver_page, transactional_db):
    sessions.ensure(agent="codingAgent", session_id="compacted")
    item_log.append("compacted", [{"role": "user", "content": "the first question"}])
    item_log.compact("compacted", [{"type": "compaction"}, {"role": "user", "content": "the archived question"}])
    item_log.compact("compacted", [{"type": "compaction"}, {"role": "user", "content": "after compaction"}])
    page = approver_page
    page.goto("/p/default/sessions/compacted/")
    marker = page.locator("#timeline > .marker.compaction")
    expect(marker).to_contain_text("History compacted here")
    expect(page.get_by_text("the archived question")).to_be_hidden()
    page.locator("details.archived-history > summary").click()
    expect(page.get_by_text("the archived question")).to_be_visible()
    assert page.get_by_text("the archived question").bounding_box()["y"] < marker.bounding_box()["y"]
    # The epoch before that one loads in place, inside the archive, above its own marker.
    page.get_by_role("link", name="Show earlier archived history").click()
    expect(page.get_by_text("the first question")).to_be_visible()
    assert (
        page.get_by_text("the first question").bounding_box()["y"]
        < page.locator(".archived-history .marker.compaction").bounding_box()["y"]
        < page.get_by_text("the archived question").bounding_box()["y"]
    )
    expect(page).to_have_url("/p/default/sessions/compacted/")


def test_new_items_and_changes_appear_on_their_own(approver_page, transactional_db):
    sessions.ensure(agent="supportAgent", session_id="live")
    item_log.append("live", [{"type": "function_call", "call_id": "c1", "name": "lookup_order", "arguments": "{}"}])
    page = approver_page
    page.goto("/p/default/sessions/live/")
    card = page.locator("#timeline .entry-action")
    expect(card).to_contain_text("running")

    item_log.append(
        "live",
        [
            {"type": "function_call_output", "call_id": "c1", "output": "delivered"},
            {"role": "assistant", "content": "Your order was delivered."},
        ],
    )
    expect(page.locator("#timeline .entry-message")).to_contain_text(
        "Your order was delivered.", timeout=LIVE_TIMEOUT_MS
    )
    expect(card).to_contain_text("completed")
    expect(page.locator("#timeline .entry")).to_have_count(2)

    client_actions.open_action("live", call_id="ok", name="send_refund", arguments={"amount": 5})
    expect(page.get_by_role("button", name="Approve")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#session-header")).to_contain_text("1 waiting for a person")
    expect(page.locator("#inbox-count")).to_have_text("1", timeout=LIVE_TIMEOUT_MS)


def test_what_an_approver_types_survives_a_live_update(approver_page, refund_session):
    page = approver_page
    page.goto("/p/default/sessions/refund-1/")
    page.get_by_label("Comment").fill("half typed")
    item_log.append("refund-1", [{"role": "assistant", "content": "Still waiting for a person."}])
    expect(page.get_by_text("Still waiting for a person.")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    expect(page.get_by_label("Comment")).to_have_value("half typed")


def test_a_viewer_sees_the_waiting_action_but_no_approve_button(viewer_page, refund_session):
    page = viewer_page
    page.goto("/p/default/sessions/refund-1/")
    card = page.locator(".entry-client_action")
    expect(card).to_contain_text("request_human_approval")
    expect(card).to_contain_text('"amount": 750')
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)
    expect(page.get_by_role("button", name="Reject")).to_have_count(0)
    page.goto("/p/default/approvals/")
    expect(page.locator(".approval-title")).to_contain_text("request_human_approval")
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)

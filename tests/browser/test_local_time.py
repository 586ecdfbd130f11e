"""Times show in the viewer's own zone, in one format, with the absolute time and zone on hover
(static/js/local-time.js, docs/dashboard.md "Times")."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from historyhub.history import client_actions, item_log, sessions
from historyhub.history.models import ClientAction, Session
from tests.browser.conftest import log_in, watched_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("zone", "shown"), [("America/New_York", "May 31, 20:30"), ("Asia/Tokyo", "Jun 1, 09:30")])
def test_a_time_written_in_utc_reads_in_the_browsers_zone(browser, asgi_live_server, approver, zone, shown):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Where is my order?")
    item_log.append("support-1", [{"role": "user", "content": "Where is my order?"}])
    # This year's, so the year is left out as it is for every time of this year.
    this_year = datetime.now(UTC).year
    Session.objects.filter(pk="support-1").update(updated_at=datetime(this_year, 6, 1, 0, 30, tzinfo=UTC))
    context = browser.new_context(base_url=asgi_live_server.url, timezone_id=zone, locale="en-US")
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        updated = page.locator("td.when time")
        expect(updated).to_have_text(shown)
        # Asked of the element as it is when it matches (the live table may redraw it meanwhile).
        zone_name = "EDT" if zone == "America/New_York" else r"GMT\+9"
        expect(updated).to_have_attribute("title", re.compile(rf"{zone_name}.*\({this_year}-06-01 00:30:00 UTC\)"))
        assert problems == []
    finally:
        context.close()


def test_the_inbox_and_sessions_list_say_how_long_ago_with_the_full_time_on_hover(browser, asgi_live_server, approver):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Where is my order?")
    action, _ = client_actions.open_action("support-1", call_id="c1", name="issue_refund", arguments={"amount": 5})
    five_minutes_ago = datetime.now(UTC) - timedelta(minutes=5, seconds=10)
    Session.objects.filter(pk="support-1").update(updated_at=five_minutes_ago)
    ClientAction.objects.filter(pk=action.pk).update(created_at=five_minutes_ago - timedelta(hours=2))
    context = browser.new_context(base_url=asgi_live_server.url, timezone_id="Asia/Tokyo", locale="en-US")
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        updated = page.locator("td.when time")
        expect(updated).to_have_text("5 min ago")
        expect(updated).to_have_attribute("title", re.compile(r"GMT\+9.*UTC\)"))
        page.goto("/p/default/approvals/")
        expect(page.locator(".approval-meta time").first).to_have_text("asked 2 h ago")
        assert problems == []
    finally:
        context.close()


def test_a_zone_chosen_on_the_profile_wins_over_the_browsers_and_the_title_says_so(browser, asgi_live_server, approver):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Where is my order?")
    this_year = datetime.now(UTC).year
    Session.objects.filter(pk="support-1").update(updated_at=datetime(this_year, 6, 1, 0, 30, tzinfo=UTC))
    context = browser.new_context(base_url=asgi_live_server.url, timezone_id="America/New_York", locale="en-US")
    try:
        page, problems = watched_page(context)
        log_in(page, "owner", "owner-password-1")
        updated = page.locator("td.when time")
        expect(updated).to_have_attribute("title", re.compile(r"EDT · America/New_York, your browser's time zone"))

        page.goto("/accounts/profile/")
        page.get_by_role("combobox", name="Time zone").select_option("Asia/Tokyo")
        page.get_by_role("button", name="Save the time zone").click()
        expect(page.locator("#current-time-zone")).to_have_text("Times show in Asia/Tokyo, on every page.")
        page.goto("/p/default/")

        expect(updated).to_have_text("Jun 1, 09:30")
        expect(updated).to_have_attribute(
            "title",
            re.compile(rf"GMT\+9 · Asia/Tokyo, the time zone on your profile \({this_year}-06-01 00:30:00 UTC\)"),
        )
        assert problems == []
    finally:
        context.close()

"""Times show in the viewer's own zone, in one format, with the absolute time and zone on hover
(static/js/local-time.js, docs/dashboard.md "Times")."""

import re
from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from historyhub.history import item_log, sessions
from historyhub.history.models import Session
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

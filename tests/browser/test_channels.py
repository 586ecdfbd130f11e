"""In Chromium: an admin edits a channel on the channels page, and a test event sent from there goes through the
outbox and a real `manage.py deliver` worker, its row showing the receiver's answer once the worker has tried
(docs/notifications.md, "Managing channels", "Test events")."""

import pytest
from playwright.sync_api import expect

from historyhub.notifications import channels, trial_event
from historyhub.notifications.delivery_worker import Worker
from historyhub.notifications.models import Channel
from tests.browser.conftest import log_in, watched_page
from tests.browser.test_accessibility import OPEN_EVERY_DETAILS, themed_context, violations
from tests.notifications.test_delivery_worker import start_worker, stop
from tests.support.actors import make_member
from tests.support.browser import LIVE_TIMEOUT_MS, screenshot
from tests.support.tiny_server import TinyServer

pytestmark = pytest.mark.browser
URL = "/p/default/settings/channels/"
EVENTS = ["client_action.opened"]


@pytest.fixture
def admin_page(page, settings, transactional_db):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = True
    make_member("boss", "admin", password="boss-password-1")
    log_in(page, "boss", "boss-password-1")
    return page


@pytest.fixture
def receivers():
    with TinyServer([]) as healthy, TinyServer([(500, {}, {"error": "down for maintenance"})]) as broken:
        yield healthy, broken


def webhook(name, url):
    return channels.create("default", "webhook", actor="tests", name=name, events=EVENTS, url=url)


def test_a_test_event_goes_through_the_worker_and_its_row_shows_how_it_went(admin_page, receivers):
    page = admin_page
    healthy, broken = receivers
    webhook("ops", healthy.url)
    webhook("pager", broken.url)
    page.goto(URL)
    for name in ("ops", "pager"):
        page.get_by_role("region", name=name).get_by_role("button", name="Send a test event").click()
        expect(page.get_by_text("A test event is on its way")).to_be_visible()
    ops, pager = page.get_by_role("region", name="ops"), page.get_by_role("region", name="pager")
    expect(ops.get_by_role("row").nth(1)).to_contain_text("not tried yet")
    assert healthy.requests == [] and broken.requests == []

    worker = start_worker()
    try:
        expect(ops.locator("[data-label=Status]").first).to_have_text("delivered", timeout=3 * LIVE_TIMEOUT_MS)
        expect(pager.locator("[data-label=Status]").first).to_have_text("failed: 500", timeout=3 * LIVE_TIMEOUT_MS)
    finally:
        stop(worker)
    expect(pager.locator("[data-label=Attempts]").first).to_contain_text("down for maintenance")
    assert [request["body"]["type"] for request in healthy.requests] == ["channel.test"]
    assert len(broken.requests) == 1


def test_an_admin_edits_a_channel_and_a_refused_edit_says_why_on_the_page(admin_page, receivers, settings):
    page = admin_page
    healthy, _ = receivers
    channel = webhook("ops", healthy.url)
    page.goto(URL)
    region = page.get_by_role("region", name="ops")
    region.get_by_text("Edit ops").click()
    form = region.locator(f"#edit-{channel.pk}")
    form.get_by_label("Name").fill("ops on call")
    form.get_by_label("Decided").check()
    form.get_by_label("Agents").fill("support*")
    form.get_by_label("Enabled").uncheck()
    form.get_by_role("button", name="Save ops").click()

    expect(page.get_by_text("The channel ops on call was saved.")).to_be_visible()
    region = page.get_by_role("region", name="ops on call")
    expect(region.get_by_role("heading")).to_contain_text("disabled")
    saved = Channel.objects.get()
    assert (saved.events, saved.agents, saved.enabled) == (
        ["client_action.opened", "client_action.decided"],
        ["support*"],
        False,
    )

    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    region.get_by_text("Edit ops on call").click()
    form = region.locator(f"#edit-{channel.pk}")
    form.get_by_label("Name").fill("renamed")
    form.get_by_role("button", name="Save ops on call").click()
    expect(form.get_by_role("alert")).to_contain_text(
        "url must not point at a loopback, private or link-local address."
    )
    expect(form.get_by_label("Name")).to_have_value("renamed")
    assert Channel.objects.get().name == "ops on call"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_channels_page_with_its_edit_forms_and_results_passes_axe_and_fits_a_phone(
    browser, asgi_live_server, transactional_db, settings, receivers, theme
):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = True
    make_member("boss", "admin", password="boss-password-1")
    healthy, broken = receivers
    for channel in (webhook("ops", healthy.url), webhook("pager", broken.url)):
        trial_event.send(channel, actor="boss")
    channels.create("default", "slack", actor="tests", name="approvals", events=EVENTS, slack_channel="C42")
    channels.create("default", "email", actor="tests", name="mail", events=EVENTS)
    Worker().deliver_due()
    trial_event.send(Channel.objects.get(name="ops"), actor="boss")  # one not tried yet
    context = themed_context(browser, asgi_live_server, theme)
    try:
        page, problems = watched_page(context)
        log_in(page, "boss", "boss-password-1")
        found = violations(page, URL)
        screenshot(page, f"channels-{theme}")
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(URL)
        page.evaluate(OPEN_EVERY_DETAILS)
        widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        screenshot(page, f"channels-{theme}-390")
        assert problems == []
    finally:
        context.close()
    assert found == [], found
    assert widths[0] <= widths[1]

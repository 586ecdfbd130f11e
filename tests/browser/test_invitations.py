"""An admin invites a colleague by email on the settings page; the colleague opens the mailed link, makes an
account, and is logged in on the project, seeing its sessions (docs/people.md)."""

import re

import pytest
from playwright.sync_api import expect

from historyhub.history import item_log, sessions
from tests.browser.conftest import log_in, watched_page
from tests.notifications.conftest import deliver_due
from tests.support.actors import make_member
from tests.support.smtp import local_inbox, text_of

pytestmark = pytest.mark.browser

LINK = re.compile(r"https?://\S+/accounts/invitations/[A-Za-z0-9_-]+/")


@pytest.fixture
def inbox(settings, asgi_live_server):
    settings.HISTORYHUB_PUBLIC_URL = asgi_live_server.url
    settings.NOTIFICATIONS_SEND_THREADS = 1
    with local_inbox(settings) as handler:
        yield handler


def test_an_invited_colleague_accepts_and_sees_the_project(page, browser, asgi_live_server, inbox):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Where is my order?")
    item_log.append("support-1", [{"role": "user", "content": "Where is my order #4411?"}])
    make_member("boss", "admin", password="boss-password-1")
    log_in(page, "boss", "boss-password-1")
    page.goto("/p/default/settings/")
    invite = page.get_by_role("form", name="Invite by email")
    invite.get_by_label("Email").fill("dee@example.com")
    invite.get_by_label("Role").select_option("approver")
    invite.get_by_role("button", name="Invite by email").click()
    expect(page.get_by_role("status")).to_contain_text("The invitation was made")
    expect(page.locator("#invitations-title + p + table")).to_contain_text("dee@example.com")

    deliver_due()
    ((recipients, message),) = inbox.messages
    assert recipients == ["dee@example.com"]
    link = LINK.search(text_of(message)).group(0)

    colleague_context = browser.new_context(base_url=asgi_live_server.url)
    colleague, problems = watched_page(colleague_context)
    colleague.goto(link)
    expect(colleague.get_by_role("heading", name="Join Default")).to_be_visible()
    form = colleague.get_by_role("form", name="A new account")
    form.get_by_label("Username").fill("dee")
    form.get_by_label("Password", exact=True).fill("a-long-and-unusual-passphrase-7")
    form.get_by_label("Password again").fill("a-long-and-unusual-passphrase-7")
    form.get_by_role("button", name="Create the account and join").click()
    expect(colleague).to_have_url("/p/default/")
    expect(colleague.get_by_role("link", name="Where is my order?")).to_be_visible()
    expect(colleague.locator(".account")).to_contain_text("dee")
    expect(colleague.locator(".account")).to_contain_text("approver")
    assert problems == []
    colleague_context.close()

"""The data page in Chromium (docs/data.md, "On the dashboard"): an admin downloads the export the API gives,
imports it back and reads the result where the progress line stood; a file over the limit is refused before it
is sent. No CSP violation on the way."""

import pytest
from django.db import transaction
from playwright.sync_api import expect

from historyhub.dashboard import data_page
from historyhub.data import export
from historyhub.history import client_actions, item_log, ownership, sessions
from historyhub.history.models import Session
from historyhub.lib.session_keys import session_key
from historyhub.projects.models import Role
from tests.browser.conftest import log_in
from tests.support.actors import make_member

pytestmark = pytest.mark.browser


@pytest.fixture
def admin_page(page, transactional_db):
    make_member("ada", Role.ADMIN, password="ada-password-1")
    log_in(page, "ada", "ada-password-1")
    page.goto("/p/default/settings/data/")
    return page


def test_an_admin_downloads_the_export_and_imports_it_back(admin_page, tmp_path):
    page = admin_page
    for session_id, agent in (("support-1", "supportAgent"), ("billing-1", "billingAgent")):
        sessions.ensure(agent=agent, session_id=session_id, name=f"About {session_id}")
        item_log.append(session_id, [{"role": "user", "content": f"Hello from {session_id}"}])
    client_actions.open_action("support-1", call_id="c1", name="issue_refund", arguments={"amount": 5})
    expected = "".join(export.lines(export.selected("default", agent="supportAgent")))

    page.get_by_label("Agent").fill("supportAgent")
    with page.expect_download() as downloading:
        page.get_by_role("button", name="Download the export").click()
    path = tmp_path / downloading.value.suggested_filename
    downloading.value.save_as(path)
    assert path.name.startswith("default-") and path.suffix == ".jsonl"
    assert path.read_text() == expected

    with transaction.atomic():
        ownership.delete_sessions([session_key("default", "support-1")])
    page.get_by_label("Export file (JSON Lines)").set_input_files(path)
    page.get_by_role("button", name="Import").click()

    result = page.locator("#import-result")
    expect(result).to_contain_text("Imported 1 session, 1 item, 1 client action.")
    expect(result).to_contain_text("1 action waiting for this project's deciders, under its policies.")
    # Where the progress line stood, only the result shows.
    expect(page.locator(".import-progress-line").first).to_be_hidden()
    assert Session.objects.filter(session_id="support-1").exists()


def test_a_file_over_the_limit_is_refused_before_it_is_sent(admin_page, settings):
    page = admin_page
    settings.HISTORYHUB_MAX_BODY_BYTES = data_page.FORM_OVERHEAD_BYTES + 100
    page.reload()
    field = page.get_by_label("Export file (JSON Lines)")

    field.set_input_files({"name": "big.jsonl", "mimeType": "application/x-ndjson", "buffer": b"x" * 101})
    page.get_by_role("button", name="Import").click()

    assert "the page takes at most" in field.evaluate("input => input.validationMessage")
    expect(page.locator("#import-result")).to_have_count(0)

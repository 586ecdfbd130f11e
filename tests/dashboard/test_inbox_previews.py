"""The approvals page stays light whatever agents send: each card shows the start of an action's arguments and
description, and Show all loads the whole value from a fragment URL of the page's project (docs/dashboard.md,
"Large arguments and descriptions")."""

import json

import pytest
from django.conf import settings
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.dashboard.json_preview import CARD_PREVIEW_CHARS, DESCRIPTION_CHARS
from historyhub.history import client_actions
from historyhub.lib import jsonvalues
from historyhub.lib.session_keys import DEFAULT_PROJECT, session_key
from historyhub.projects import administration
from historyhub.projects.models import Membership, Role
from tests.support.actors import HTMX, ApiClient, logged_in, make_member, post
from tests.support.html import parse

PROJECT = "alpha"
SESSION = "export-1"
AT_THE_CAPS = 3
# The page with these four cards measured 32 KB: a card at the caps costs about 7 KB, whatever its values hold.
PAGE_BYTES = 40_000


def at_the_cap(build):
    """``build(filler)`` whose serialised size is exactly the cap, the filler's length found for it."""
    cap = settings.HISTORYHUB_MAX_ACTION_FIELD_BYTES
    overhead = build("")
    size = len((overhead if isinstance(overhead, str) else jsonvalues.dumps(overhead)).encode())
    return build("x" * (cap - size))


# Past every preview: an override, and a word that makes the action look destructive.
ARGUMENTS = at_the_cap(lambda filler: {"note": filler, "iban": "\u202e55 5555", "then": "delete the account"})
DESCRIPTION = at_the_cap(lambda filler: f"# Export\n\n{filler} and **the very end**")


@pytest.fixture
def alpha(db):
    """Actions at the caps in project alpha, opened through the API, and a small one."""
    administration.create_project(PROJECT, "Alpha")
    agent = ApiClient(ApiKey.issue("alpha agent", "write", project=PROJECT)[1])
    assert agent.post("sessions", {"sessionId": SESSION, "agent": "exporter"}).status_code == 201
    for number in range(AT_THE_CAPS):
        opened = agent.post(
            f"sessions/{SESSION}/client-actions",
            {"callId": f"big-{number}", "name": "upload_rows", "arguments": ARGUMENTS, "description": DESCRIPTION},
        )
        assert opened.status_code == 201, opened.content[:300]
    small = {"callId": "small", "name": "send_mail", "arguments": {"to": "ana@example.com"}, "description": "Hi"}
    assert agent.post(f"sessions/{SESSION}/client-actions", small).status_code == 201


@pytest.fixture
def approver(alpha):
    return logged_in(make_member("ana", Role.APPROVER, PROJECT))


def page(client):
    return client.get(reverse("dashboard:approvals", args=[PROJECT]))


def card_of(response, call_id):
    return next(card for card in parse(response).all("li.approval") if call_id in card.text(".approval-title"))


def action_url(call_id, what, project=PROJECT):
    return f"/p/{project}/sessions/{SESSION}/client-actions/{call_id}/{what}/"


def test_the_page_is_bounded_whatever_the_actions_hold(approver):
    response = page(approver)
    assert response.status_code == 200
    assert len(response.content) < PAGE_BYTES
    card = card_of(response, "big-0")
    assert len(card.one("pre.json").exact_text()) == CARD_PREVIEW_CHARS
    assert json.dumps(ARGUMENTS, indent=2, ensure_ascii=False).startswith(card.one("pre.json").exact_text())
    assert card.text(".description .preview-note").startswith(f"Showing the first {DESCRIPTION_CHARS} characters")
    assert "the very end" not in card.text(".description")
    # What lies beyond the previews is still told: the override, and the word that deletes.
    assert card.one(".notice.warning") and "delete" in card.text(".callout")


def test_show_all_loads_each_whole_value_from_its_fragment_url(approver):
    card = card_of(page(approver), "big-1")
    arguments_link = card.link("Show all arguments (1.0 MB)")
    description_link = card.link("Show all description (1.0 MB)")
    assert arguments_link["href"] == arguments_link["hx-get"] == action_url("big-1", "arguments")
    assert description_link["href"] == description_link["hx-get"] == action_url("big-1", "description")
    assert arguments_link["hx-target"] == "closest .preview"

    fragment = approver.get(arguments_link["href"], headers=HTMX)
    assert fragment.status_code == 200 and b"<html" not in fragment.content
    whole = parse(fragment).one("pre.json").exact_text()
    assert json.loads(whole) == ARGUMENTS and "\\u202e55 5555" in whole

    fragment = approver.get(description_link["href"], headers=HTMX)
    assert fragment.status_code == 200 and b"<html" not in fragment.content
    assert "the very end" in parse(fragment).text(".description strong")
    assert len(parse(fragment).text(".description")) > DESCRIPTION_CHARS * 100

    # Without script the links open the whole value: the arguments as JSON, the description as a page.
    document = approver.get(arguments_link["href"])
    assert document["Content-Type"] == "application/json; charset=utf-8"
    assert json.loads(document.content) == ARGUMENTS
    described = approver.get(description_link["href"])
    assert described.status_code == 200 and b"<html" in described.content
    assert "the very end" in parse(described).text("main .description strong")


def test_approve_on_the_page_approves_the_original_arguments_not_the_preview(approver):
    form = card_of(page(approver), "big-2").one("form.approval-decision")
    sent = form.submitted(form.button("Approve"))
    assert "arguments" not in sent
    assert "Too large to edit here" in form.text()
    response = post(approver, form["action"], sent)
    assert response.status_code == 302
    action = client_actions.get(session_key(PROJECT, SESSION), "big-2")
    assert action.status == "approved"
    assert action.approved_arguments_json == action.arguments_json
    assert action.approved_arguments == ARGUMENTS


def test_small_arguments_are_edited_on_the_card_as_before(approver):
    form = card_of(page(approver), "small").one("form.approval-decision")
    sent = form.submitted(form.button("Approve"))
    assert json.loads(sent["arguments"][0]) == {"to": "ana@example.com"}
    sent["arguments"] = ['{"to": "ben@example.com"}']
    assert post(approver, form["action"], sent).status_code == 302
    action = client_actions.get(session_key(PROJECT, SESSION), "small")
    assert action.approved_arguments == {"to": "ben@example.com"}


@pytest.mark.parametrize("what", ["arguments", "description"])
def test_another_projects_action_is_not_found_at_this_projects_url(alpha, what):
    both = make_member("bo", Role.APPROVER, PROJECT)
    Membership.objects.create(user=both, project_id=DEFAULT_PROJECT, role=Role.APPROVER)
    client = logged_in(both)
    assert client.get(action_url("big-0", what)).status_code == 200
    # Bo belongs to the default project too, but alpha's action is not there.
    assert client.get(action_url("big-0", what, project=DEFAULT_PROJECT)).status_code == 404
    assert client.get(action_url("big-0", what, project=DEFAULT_PROJECT), headers=HTMX).status_code == 404


@pytest.mark.parametrize("what", ["arguments", "description"])
def test_a_person_gets_from_the_fragment_what_the_page_gives_them(alpha, what):
    outsider = logged_in(make_member("olga", Role.APPROVER))  # of the default project only
    assert page(outsider).status_code == 403
    assert outsider.get(action_url("big-0", what)).status_code == 403
    assert outsider.get(action_url("big-0", what), headers=HTMX).status_code == 403

    viewer = logged_in(make_member("vic", Role.VIEWER, PROJECT))
    assert page(viewer).status_code == 200
    assert viewer.get(action_url("big-0", what), headers=HTMX).status_code == 200

    anonymous = logged_in(make_member("nobody", Role.VIEWER, PROJECT))
    anonymous.logout()
    assert anonymous.get(action_url("big-0", what)).status_code == 302


def test_the_timeline_card_shows_the_start_of_the_description_too(approver):
    response = approver.get(reverse("dashboard:session", args=[PROJECT, SESSION]))
    assert response.status_code == 200
    cards = parse(response).all(".client-action .description.preview")
    assert len(cards) == AT_THE_CAPS + 1  # and the small one, whole
    assert not cards[-1].links() and cards[-1].text() == "Hi"
    link = cards[0].link("Show all description (1.0 MB)")
    assert link["hx-get"] == action_url("big-0", "description")
    assert "the very end" not in cards[0].text()


def test_an_imported_action_at_the_caps_is_called_out_for_what_lies_beyond_its_preview(alpha):
    exporter = ApiClient(ApiKey.issue("alpha exporter", "write", project=PROJECT)[1])
    exported = exporter.get("export")
    assert exported.status_code == 200
    administration.create_project("beta", "Beta")
    importer = ApiClient(ApiKey.issue("beta importer", "admin", project="beta")[1])
    lines = b"".join(exported.streaming_content)
    imported = importer.request("POST", "import", raw=lines, headers={"Content-Type": "application/x-ndjson"})
    assert imported.status_code == 200, imported.content[:300]

    client = logged_in(make_member("bea", Role.APPROVER, "beta"))
    response = client.get(reverse("dashboard:approvals", args=["beta"]))
    assert len(response.content) < PAGE_BYTES
    card = card_of(response, "big-0")
    assert card.one(".notice.warning") and "delete" in card.text(".callout")
    assert card.link("Show all arguments (1.0 MB)")["href"] == action_url("big-0", "arguments", project="beta")

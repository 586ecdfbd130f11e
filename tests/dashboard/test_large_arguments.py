"""Large arguments: pages show a bounded preview with the size and a link to all of them, and
approving them approves them exactly, never the preview (docs/dashboard.md, "Large arguments and descriptions")."""

import json

import pytest
from django.template.defaultfilters import filesizeformat
from django.urls import reverse

from historyhub.dashboard.json_preview import CARD_PREVIEW_CHARS, PREVIEW_CHARS
from historyhub.history import client_actions, item_log, sessions
from historyhub.lib import jsonvalues
from tests.support.actors import post
from tests.support.html import normalised, parse
from tests.support.readers import decision_url


def rows(count):
    """Arguments of ``count`` rows, with an override far beyond any preview."""
    return {"rows": [{"n": number, "text": "abcdefghij" * 10} for number in range(count)], "iban": "\u202e55 5555"}


def label(value):
    """The link to all of a value, with its size as a page shows it."""
    return normalised(f"Show all arguments ({filesizeformat(len(jsonvalues.dumps(value).encode()))})")


# Close to the 1 MiB a client action's arguments may hold; a tool call's a little less.
ROWS, CALL_ROWS = rows(8_000), rows(5_000)


@pytest.fixture
def export(db):
    sessions.ensure(agent="dataAgent", session_id="export-1", name="Export the ledger")
    item_log.append(
        "export-1",
        [{"type": "function_call", "call_id": "c1", "name": "load_rows", "arguments": json.dumps(CALL_ROWS)}],
    )
    client_actions.open_action("export-1", call_id="upload", name="upload_rows", arguments=ROWS)


def preview_of(card):
    return card.one("pre.json").exact_text()


def test_the_approvals_page_shows_the_first_part_its_size_and_a_link_to_all(viewer_client, export):
    response = viewer_client.get(reverse("dashboard:approvals", args=["default"]))
    assert len(response.content) < 200_000
    card = parse(response).one("li.approval")
    assert len(preview_of(card)) == CARD_PREVIEW_CHARS
    assert json.dumps(ROWS, indent=2, ensure_ascii=False).startswith(preview_of(card))
    link = card.link(label(ROWS))
    assert link["href"] == "/p/default/sessions/export-1/client-actions/upload/arguments/"
    size = label(ROWS).removeprefix("Show all arguments (").removesuffix(")")
    assert card.text(".preview-note").startswith(f"Showing the first {CARD_PREVIEW_CHARS} characters of {size}.")
    # The whole value was looked at: the override beyond the preview is warned of.
    assert card.one(".notice.warning")


def test_all_the_arguments_come_as_json_with_hidden_characters_escaped(viewer_client, export):
    response = viewer_client.get("/p/default/sessions/export-1/client-actions/upload/arguments/")
    assert response.status_code == 200 and response["Content-Type"] == "application/json; charset=utf-8"
    text = response.content.decode()
    assert json.loads(text) == ROWS and "\u202e" not in text and "\\u202e55 5555" in text


def test_approving_from_the_approvals_page_approves_the_exact_original_arguments(approver_client, export):
    response = post(
        approver_client,
        reverse("dashboard:decide_selected", args=["default"]),
        {"selected": "export-1/upload", "decision": "approve"},
    )
    assert response.status_code == 302
    action = client_actions.get("export-1", "upload")
    assert action.status == "approved" and action.approved_arguments_json == action.arguments_json


def test_a_timeline_card_offers_no_box_for_them_and_approve_approves_them_as_requested(approver_client, export):
    response = approver_client.get(reverse("dashboard:session", args=["default", "export-1"]))
    assert len(response.content) < 200_000
    page = parse(response)
    card = page.one("article.entry-client_action")
    assert not card.all("textarea[name=arguments]") and "Too large to edit here" in card.text()
    assert card.link(label(ROWS))["href"] == "/p/default/sessions/export-1/client-actions/upload/arguments/"
    post(approver_client, decision_url("export-1", "upload"), card.one("form").submitted(card.button("Approve")))
    action = client_actions.get("export-1", "upload")
    assert action.status == "approved" and action.approved_arguments_json == action.arguments_json
    decided = parse(approver_client.get(reverse("dashboard:session", args=["default", "export-1"])))
    approved = decided.one("article.entry-client_action").links(label(ROWS))
    assert [link["href"] for link in approved] == [
        "/p/default/sessions/export-1/client-actions/upload/arguments/",
        "/p/default/sessions/export-1/client-actions/upload/arguments/?approved=1",
    ]
    assert json.loads(approver_client.get(approved[1]["href"]).content) == ROWS


def test_a_tool_call_card_links_to_all_its_arguments(viewer_client, export):
    page = parse(viewer_client.get(reverse("dashboard:session", args=["default", "export-1"])))
    card = page.one("article.entry-action")
    assert len(preview_of(card)) == PREVIEW_CHARS
    response = viewer_client.get(card.link(label(CALL_ROWS))["href"])
    assert json.loads(response.content) == CALL_ROWS


def test_arguments_of_what_is_not_there_are_not_found(viewer_client, export):
    message = reverse("dashboard:session", args=["default", "export-1"])
    for url in (
        "/p/default/sessions/export-1/client-actions/nobody/arguments/",
        "/p/default/sessions/export-1/client-actions/upload/arguments/?approved=1",
        f"{message}entries/999999/arguments/",
    ):
        assert viewer_client.get(url).status_code == 404


def test_small_arguments_show_whole_with_no_link(viewer_client, db):
    sessions.ensure(agent="a", session_id="small")
    client_actions.open_action("small", call_id="c/1", name="ping", arguments={"host": "example.com"})
    card = parse(viewer_client.get(reverse("dashboard:approvals", args=["default"]))).one("li.approval")
    assert preview_of(card) == '{\n  "host": "example.com"\n}' and not card.links()[1:]

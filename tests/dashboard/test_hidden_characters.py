"""Invisible and direction-changing characters are shown as ⟨U+…⟩ wherever an action shows, and the
arguments box holds them as JSON escapes that read back as the same characters
(historyhub/lib/hidden_characters.py)."""

import json
import sys
import unicodedata

import pytest
from django.urls import reverse

from historyhub.history import client_actions, item_log, sessions
from historyhub.lib import hidden_characters
from tests.support.actors import post
from tests.support.html import parse
from tests.support.readers import decision_url

RLO, PDF = "\u202e", "\u202c"
# Shows as GB33 BUKB 2020 1555 5555 55: the override turns what follows it around.
IBAN = f"{RLO}55 5555 5551 0202 BKUB 33BG{PDF}"


def test_every_format_character_unicode_knows_is_hidden():
    missing = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf" and not hidden_characters.contains(chr(code))
    ]
    assert missing == []


@pytest.mark.parametrize(
    "character",
    ["\u200b", "\u200d", "\u200e", "\u061c", "\u2066", "\u00ad", "\u180e", "\ufeff", "\U000e0041", "\x07", "\x85"],
)
def test_zero_width_direction_tag_and_control_characters_are_hidden(character):
    assert hidden_characters.contains(f"a{character}b")


@pytest.mark.parametrize("text", ["tab\tand\nnew line", "a Windows\r\nline break", "❤️ café, عربى, 日本"])
def test_tab_new_lines_variation_selectors_and_other_scripts_are_not(text):
    assert not hidden_characters.contains(text)


def test_a_carriage_return_alone_is_hidden():
    assert hidden_characters.contains("overwrite\rme")


def test_marked_text_is_escaped_and_names_each_hidden_character():
    marked = hidden_characters.marked(f"<b>{RLO}x\u200b")
    assert marked == (
        '&lt;b&gt;<mark class="hidden-char" title="RIGHT-TO-LEFT OVERRIDE">⟨U+202E⟩</mark>'
        'x<mark class="hidden-char" title="ZERO WIDTH SPACE">⟨U+200B⟩</mark>'
    )
    assert hidden_characters.labelled(f"a{RLO}b") == "a⟨U+202E⟩b"


@pytest.mark.parametrize("value", [IBAN, "tag \U000e0041 \U000e007f", "lone \ud800 surrogate", "zw\u200bj\u200d"])
def test_escaped_json_reads_back_as_the_very_same_value(value):
    text = hidden_characters.escaped_json(json.dumps({"v": value}, ensure_ascii=False))
    assert not hidden_characters.contains(text) and json.loads(text) == {"v": value}


@pytest.fixture
def disguised(db):
    sessions.ensure(agent="billingAgent", session_id="pay-1", name=f"Pay{RLO}the supplier")
    item_log.append("pay-1", [{"role": "user", "content": "Pay the supplier."}])
    client_actions.open_action(
        "pay-1",
        call_id=f"call{RLO}1",
        name="send\u200b_payment",
        arguments={"iban": IBAN, "amount": 900},
        description=f"To {IBAN}",
    )


def test_the_approvals_page_shows_every_hidden_character_and_warns(viewer_client, disguised):
    card = parse(viewer_client.get(reverse("dashboard:approvals", args=["default"]))).one("li.approval")
    assert card.text(".notice.warning") == (
        "This action's text contains invisible or direction-changing characters, shown as ⟨U+…⟩."
    )
    assert card.text("h2.approval-title") == "send⟨U+200B⟩_payment call⟨U+202E⟩1"
    assert card.text(".approval-meta a") == "Pay⟨U+202E⟩the supplier"
    assert card.text(".description") == "To ⟨U+202E⟩55 5555 5551 0202 BKUB 33BG⟨U+202C⟩"
    shown = card.one("pre.json").exact_text()
    assert '"iban": "⟨U+202E⟩55 5555 5551 0202 BKUB 33BG⟨U+202C⟩"' in shown and RLO not in shown
    assert card.all("mark.hidden-char")[0]["title"] == "ZERO WIDTH SPACE"


def test_an_approvers_checkbox_and_comment_labels_show_them_as_plain_markers(approver_client, disguised):
    card = parse(approver_client.get(reverse("dashboard:approvals", args=["default"]))).one("li.approval")
    assert card.one("input.select")["aria-label"] == "Select send⟨U+200B⟩_payment in Pay⟨U+202E⟩the supplier"


def test_the_timeline_card_and_header_show_them_and_the_box_holds_escapes(approver_client, disguised):
    page = parse(approver_client.get(reverse("dashboard:session", args=["default", "pay-1"])))
    assert page.text("title").startswith("Pay⟨U+202E⟩the supplier")
    assert page.text("#session-header h1") == "Pay⟨U+202E⟩the supplier"
    card = page.one("article.entry-client_action")
    assert "shown as ⟨U+…⟩" in card.text(".notice.warning")
    assert card.text("strong.name") == "send⟨U+200B⟩_payment" and card.text(".description").startswith("To ⟨U+202E⟩")
    box = card.field("arguments").exact_text()
    assert '"iban": "\\u202e55 5555 5551 0202 BKUB 33BG\\u202c"' in box and RLO not in box
    assert "written here as \\u… escapes" in card.text()


def test_approving_the_box_as_shown_approves_the_exact_original_arguments(approver_client, disguised):
    url = decision_url("pay-1", f"call{RLO}1")
    box = (
        parse(approver_client.get(reverse("dashboard:session", args=["default", "pay-1"])))
        .field("arguments")
        .exact_text()
    )
    response = post(approver_client, url, {"decision": "approve", "arguments": box}, htmx=True)
    assert response.status_code == 200
    action = client_actions.get("pay-1", f"call{RLO}1")
    assert action.approved_arguments_json == action.arguments_json
    assert action.approved_arguments["iban"] == IBAN
    card = parse(response).one("article.entry")
    assert "⟨U+202E⟩55 5555" in card.one(".records .approved figure pre").exact_text()


def test_a_comment_with_them_shows_them_once_decided(approver_client, disguised):
    post(approver_client, decision_url("pay-1", f"call{RLO}1"), {"decision": "reject", "comment": f"no{RLO}pe"})
    card = parse(approver_client.get(reverse("dashboard:session", args=["default", "pay-1"]))).one(
        "article.entry-client_action"
    )
    assert card.one("dl.resolution").terms()["Comment"] == "no⟨U+202E⟩pe"


def test_a_tool_call_card_shows_them_in_its_name_arguments_and_call_id(viewer_client, db):
    sessions.ensure(agent="a", session_id="calls")
    item_log.append(
        "calls",
        [{"type": "function_call", "call_id": "c\u200b1", "name": "look\u2066up", "arguments": '{"q": "a\u200fb"}'}],
    )
    card = parse(viewer_client.get(reverse("dashboard:session", args=["default", "calls"]))).one("article.entry-action")
    assert card.text("strong.name") == "look⟨U+2066⟩up" and "⟨U+200B⟩" in card.text("p.small code")
    assert '"q": "a⟨U+200F⟩b"' in card.one("pre.json").exact_text() and card.one(".notice.warning")


def test_an_action_without_them_has_no_warning(viewer_client, db):
    sessions.ensure(agent="a", session_id="plain")
    client_actions.open_action("plain", call_id="c1", name="send_invoice", arguments={"to": "Zoë, 東京"})
    page = parse(viewer_client.get(reverse("dashboard:approvals", args=["default"])))
    assert not page.all(".notice.warning, mark.hidden-char")


def test_the_sessions_list_shows_them_in_session_names(viewer_client, disguised):
    page = parse(viewer_client.get(reverse("dashboard:sessions", args=["default"])))
    assert page.text("a.session-link") == "Pay⟨U+202E⟩the supplier"


def test_the_admins_client_action_page_shows_them_with_the_warning(admin_client, disguised):
    action = client_actions.get("pay-1", f"call{RLO}1")
    page = parse(admin_client.get(reverse("admin:history_clientaction_change", args=[action.pk])))
    section = page.one(".hidden-characters")
    assert "shown as ⟨U+…⟩" in section.text(".errornote")
    assert "send⟨U+200B⟩_payment" in section.text() and "call⟨U+202E⟩1" in section.text()
    assert '"iban": "⟨U+202E⟩55 5555 5551 0202 BKUB 33BG⟨U+202C⟩"' in section.one("pre").exact_text()

"""An approvals card that is enough to decide on: who asked and in which conversation, the description, the
arguments as a tree, the expiry, the policy and votes, and every decision the timeline card offers, for the
same few queries whatever the number of cards (docs/dashboard.md, "The approvals inbox")."""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from historyhub.approvals import deciding, policies
from historyhub.approvals.deciders import Decider
from historyhub.dashboard.inbox import EXCERPT_CHARS, SHORT_CHARS
from historyhub.history import client_actions, item_log, sessions
from historyhub.projects.models import Group, Role
from tests.support.actors import make_member, post
from tests.support.html import parse

URL = reverse("dashboard:approvals", args=["default"])
SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string", "title": "Reason"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["reason"],
}


def user_says(text):
    return {"type": "message", "role": "user", "content": text}


def agent_says(text):
    return {"role": "assistant", "content": [{"type": "output_text", "text": text}]}


def decision_url(session_id, call_id):
    return reverse("dashboard:decide_action", args=["default", session_id, call_id])


@pytest.fixture
def refund(db):
    """A support conversation that asked for a refund, then went on after asking."""
    sessions.ensure(
        agent="supportAgent",
        session_id="refund-1",
        name="Refund for a broken machine",
        metadata={"customer": "Ingrid", "order": 4711, "tier": "gold", "channel": "email", "locale": "sv"},
    )
    item_log.append(
        "refund-1",
        [
            user_says("Hello?"),
            agent_says("How can I help?"),
            user_says("My machine arrived broken. <script>alert(1)</script>"),
            agent_says("A refund of $750 needs **approval**."),
        ],
    )
    client_actions.open_action(
        "refund-1",
        call_id="call_refund",
        name="issue_refund",
        arguments={
            "amount": 750,
            "currency": "USD",
            "lines": [{"sku": "E-1", "qty": 1, "box": {"crushed": True}}],
            "note": "broken\nbox",
        },
        description="Refund above the **$500** limit",
        expires_at=(timezone.now() + timedelta(minutes=9, seconds=30)).isoformat(),
    )
    item_log.append("refund-1", [user_says("Said after the request.")])


def the_card(client):
    return parse(client.get(URL)).one("li.approval")


def test_it_says_who_asked_in_which_session_and_its_key_metadata(viewer_client, refund):
    card = the_card(viewer_client)
    meta = card.one(".approval-meta")
    assert meta.text(".agent") == "supportAgent"
    assert meta.link("Refund for a broken machine")["href"] == "/p/default/sessions/refund-1/"
    assert meta.text("code") == "refund-1"
    metadata = card.one("dl.session-metadata")
    pairs = [(pair.text("dt"), pair.text("dd")) for pair in metadata.all("div:has(dt)")]
    assert pairs == [("customer", "Ingrid"), ("order", "4711"), ("tier", "gold"), ("channel", "email")]
    assert "and 1 more" in metadata.text()


def test_it_quotes_the_last_messages_before_the_request_escaped(viewer_client, refund):
    card = the_card(viewer_client)
    user = card.one("figure.said-user")
    assert user.text("figcaption") == "The user's last message"
    assert user.text("blockquote") == "My machine arrived broken. <script>alert(1)</script>"
    assert not card.all("blockquote script")
    assert card.one("figure.said-agent").text("blockquote") == "A refund of $750 needs **approval**."
    assert "Said after the request." not in card.text()


def test_a_long_message_is_folded_after_its_opening(viewer_client, db):
    sessions.ensure(agent="a", session_id="long")
    words = "word " * 400
    item_log.append("long", [user_says(words)])
    client_actions.open_action("long", call_id="c", name="ping", arguments={})
    said = the_card(viewer_client).one("figure.said-user")
    summary = said.text("details summary")
    assert summary.endswith("…") and len(summary) <= SHORT_CHARS + 1
    assert said.one("details blockquote").exact_text() == words[:EXCERPT_CHARS] + "…"


def test_the_description_is_markdown_rendered_safely(viewer_client, refund):
    description = the_card(viewer_client).one(".description")
    assert description.text("strong") == "$500" and description.text() == "Refund above the $500 limit"


def test_the_arguments_are_a_foldable_tree_with_their_size_and_a_copy_of_their_json(viewer_client, refund):
    card = the_card(viewer_client)
    action = client_actions.get("refund-1", "call_refund")
    size = len(action.arguments_json.encode())
    assert card.text(".arguments-head") == f"Arguments {size} bytes Copy"
    tree = card.one("ul.argument-tree")
    rows = [item.text() for item in tree.children]
    assert rows[:2] == ["amount: 750", 'currency: "USD"']
    lines, line, box = tree.all("details")
    assert [part.text(":scope > summary") for part in (lines, line, box)] == [
        "lines: [1]",
        "0: {3 keys}",
        "box: {1 key}",
    ]
    # Two levels open; deeper ones fold.
    assert (lines.get("open"), line.get("open"), box.get("open")) == ("", "", None)
    assert box.text() == "box: {1 key} crushed: true"
    assert rows[3] == 'note: "broken\\nbox"'
    # A viewer's card keeps the JSON once, in "As JSON", and Copy copies that.
    source = card.one(card.one("button.copy")["data-copy"])
    assert source in card.all("details.as-json pre") and json.loads(source.exact_text()) == action.arguments
    assert len(card.all("pre.json, textarea")) == 1


def test_an_approvers_card_keeps_the_json_once_in_the_edit_box_which_copy_copies(approver_client, refund):
    card = the_card(approver_client)
    action = client_actions.get("refund-1", "call_refund")
    source = card.one(card.one("button.copy")["data-copy"])
    assert source in card.all("textarea[name=arguments]") and json.loads(source.exact_text()) == action.arguments
    assert not card.all("details.as-json, pre[hidden]")


def test_hidden_characters_in_the_tree_show_as_markers(viewer_client, db):
    sessions.ensure(agent="a", session_id="pay")
    client_actions.open_action("pay", call_id="c", name="pay", arguments={"iban\u200b": "\u202eGB33"})
    card = the_card(viewer_client)
    assert card.one("ul.argument-tree").text() == 'iban⟨U+200B⟩: "⟨U+202E⟩GB33"'
    assert "\u202e" not in card.one("ul.argument-tree").exact_text()
    assert "\\u202e" in card.one("pre[hidden]").exact_text()


def test_the_expiry_is_an_absolute_time_with_how_long_is_left(viewer_client, refund):
    expiry = the_card(viewer_client).one(".expiry")
    action = client_actions.get("refund-1", "call_refund")
    time = expiry.one("time")
    assert time["datetime"] == action.expires_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert expiry.text() == f"expires {action.expires_at:%Y-%m-%d %H:%M} UTC (in 10 min)"
    assert "soon" in expiry.classes


def test_the_policy_and_the_votes_so_far_are_on_the_card(approver_client, db):
    ada = make_member("ada", Role.APPROVER)
    Group.objects.create(project_id="default", name="finance").members.set([ada])
    policies.replace(
        "default", [{"name": "two from finance", "approverGroups": ["finance"], "requiredApprovals": 2}], actor="tests"
    )
    sessions.ensure(agent="supportAgent", session_id="r9")
    client_actions.open_action("r9", call_id="r1", name="issue_refund", arguments={"amount": 20000})
    deciding.decide("r9", "r1", decision="approve", decider=Decider.person(ada))
    vote = client_actions.get("r9", "r1").votes.get()
    card = the_card(approver_client)
    assert card.text(".policy") == "Policy two from finance, as it read when the action opened."
    assert card.text(".votes") == f"1 of 2 approvals: ada, {vote.at:%H:%M}"
    # The owner is in no group of the policy: told why, and no buttons.
    assert card.text(".approval-refusal") == (
        'The policy "two from finance" lets only members of finance decide this action.'
    )
    assert not card.all("form")


def test_arguments_edited_on_the_card_are_approved_as_edited(approver_client, refund):
    form = the_card(approver_client).one("form.approval-decision")
    assert form["action"] == decision_url("refund-1", "call_refund")
    box = form.field("arguments")
    assert json.loads(box.exact_text())["amount"] == 750 and box.get("hx-preserve") is None
    sent = form.submitted(form.button("Approve"))
    edited = {**json.loads(sent["arguments"][0]), "amount": 700}
    response = post(approver_client, form["action"], {**sent, "arguments": json.dumps(edited)}, htmx=True)
    assert response.status_code == 200 and parse(response).text("#approval-messages") == (
        "Approved 1 action: issue_refund (call_refund) in Refund for a broken machine."
    )
    action = client_actions.get("refund-1", "call_refund")
    assert action.status == "approved" and action.decision == "approve" and action.approved_arguments == edited


def test_arguments_that_are_not_json_are_refused_beside_the_box_keeping_what_was_typed(approver_client, refund):
    form = the_card(approver_client).one("form.approval-decision")
    sent = {**form.submitted(form.button("Approve")), "arguments": '{"amount": 700', "comment": "Less."}
    for htmx in (True, False):
        response = post(approver_client, form["action"], sent, htmx=htmx)
        assert response.status_code == 422
        card = parse(response).one("li.approval")
        assert card.text(".field-error").startswith("The arguments are not valid JSON")
        assert (
            card.field("arguments").exact_text() == '{"amount": 700' and card.field("comment").exact_text() == "Less."
        )
        assert card.one("details.edit-arguments").get("open") == ""
    assert client_actions.get("refund-1", "call_refund").status == "waiting"


@pytest.fixture
def question(db):
    sessions.ensure(agent="supportAgent", session_id="ask-1")
    for call_id in ("q1", "q2"):
        client_actions.open_action(
            "ask-1",
            call_id=call_id,
            name="ask_for_reason",
            arguments={},
            allowed_responses=["respond", "dismiss"],
            response_schema=SCHEMA,
        )


def test_an_action_that_asks_for_an_answer_is_answered_on_its_card(approver_client, question):
    cards = parse(approver_client.get(URL)).all("li.approval")
    form = cards[0].one("form.approval-decision")
    assert [button.text() for button in form.all("button[name=decision]")] == ["Respond", "Dismiss"]
    assert not form.all("[name=arguments]")
    # Each card's answer fields have ids of their own, so each label names its own box.
    reason = form.one("label:-soup-contains('Reason')")
    assert form.one(f"[id='{reason['for']}']")["name"] == "answer:reason"
    assert reason["for"] != cards[1].one("label:-soup-contains('Reason')")["for"]
    sent = {**form.submitted(form.button("Respond")), "answer:reason": "Wrong size", "answer:days": "3"}
    response = post(approver_client, form["action"], sent, htmx=True)
    assert parse(response).text("#approval-messages") == "Answered 1 action: ask_for_reason (q1) in ask-1."
    action = client_actions.get("ask-1", "q1")
    assert action.status == "answered" and action.response == {"reason": "Wrong size", "days": 3}


def test_an_answer_that_does_not_fit_its_schema_is_refused_beside_the_field(approver_client, question):
    form = parse(approver_client.get(URL)).all("li.approval")[0].one("form.approval-decision")
    sent = {**form.submitted(form.button("Respond")), "answer:reason": "Wrong size", "answer:days": "0"}
    response = post(approver_client, form["action"], sent, htmx=True)
    assert response.status_code == 422
    card = parse(response).all("li.approval")[0]
    assert "greater than or equal to 1" in card.text(".answer .field-error")
    assert card.field("answer:reason")["value"] == "Wrong size"
    assert client_actions.get("ask-1", "q1").status == "waiting"


def test_the_fields_respond_needs_are_marked_required_and_the_server_still_refuses_them_empty(
    approver_client, question
):
    form = parse(approver_client.get(URL)).all("li.approval")[0].one("form.approval-decision")
    reason, days = form.field("answer:reason"), form.field("answer:days")
    assert (reason.get("required"), reason.get("aria-required")) == ("", "true")
    assert form.one(f"label[for='{reason['id']}'] .required-marker").text() == "required"
    assert days.get("required") is None and not form.all(f"label[for='{days['id']}'] .required-marker")
    # Only Respond waits for them: the other buttons tell the browser not to.
    assert [button.get("formnovalidate") for button in form.all("button[name=decision]")] == [None, ""]

    sent = {**form.submitted(form.button("Respond")), "answer:reason": ""}
    response = post(approver_client, form["action"], sent, htmx=True)
    assert response.status_code == 422
    assert parse(response).all("li.approval")[0].text(".answer .field-error") == "This field is required."
    assert client_actions.get("ask-1", "q1").status == "waiting"


def test_a_card_decision_sent_without_its_buttons_decides_nothing_and_says_which_do(approver_client, refund):
    response = post(approver_client, decision_url("refund-1", "call_refund"), {"comment": "typed, then Enter"})
    assert response.status_code == 422
    card = parse(response).one("li.approval")
    assert card.text(".field-error") == "Nothing was decided: press Approve or Reject to decide."
    assert client_actions.get("refund-1", "call_refund").status == "waiting"


def test_an_approval_of_several_needed_says_it_was_counted(approver_client, db):
    policies.replace("default", [{"name": "two", "requiredApprovals": 2}], actor="tests")
    sessions.ensure(agent="a", session_id="two")
    client_actions.open_action("two", call_id="c", name="pay", arguments={})
    response = post(approver_client, decision_url("two", "c"), {"decision": "approve"}, htmx=True)
    assert parse(response).text("#approval-messages") == (
        "Your approval was counted; the action waits for more approvals."
    )
    assert client_actions.get("two", "c").status == "waiting"


def test_a_decision_on_an_action_that_no_longer_waits_says_so_and_changes_nothing(approver_client, refund):
    deciding.decide(
        "refund-1", "call_refund", decision="reject", decider=Decider.person(make_member("bo", Role.APPROVER))
    )
    response = post(approver_client, decision_url("refund-1", "call_refund"), {"decision": "approve"}, htmx=True)
    assert response.status_code == 409
    assert parse(response).text("#approval-messages") == (
        "Client action 'call_refund' was already resolved differently. Nothing was decided."
    )
    assert client_actions.get("refund-1", "call_refund").status == "rejected"


def test_a_viewers_forced_card_decision_is_forbidden_and_another_projects_action_is_not_found(viewer_client, refund):
    assert post(viewer_client, decision_url("refund-1", "call_refund"), {"decision": "approve"}).status_code == 403
    elsewhere = reverse("dashboard:decide_action", args=["elsewhere", "refund-1", "call_refund"])
    assert post(viewer_client, elsewhere, {"decision": "approve"}).status_code == 403
    assert client_actions.get("refund-1", "call_refund").status == "waiting"


def test_a_card_decision_without_the_csrf_token_is_refused(approver_client, refund):
    response = approver_client.post(decision_url("refund-1", "call_refund"), {"decision": "approve"})
    assert response.status_code == 403 and client_actions.get("refund-1", "call_refund").status == "waiting"


def busy_inbox(count):
    """``count`` waiting actions, each in a session of its own with a conversation, metadata, a policy and a vote."""
    bo = make_member(f"bo{count}", Role.APPROVER)
    policies.replace("default", [{"name": "two", "requiredApprovals": 2}], actor="tests")
    for number in range(count):
        session_id = f"busy-{count}-{number}"
        sessions.ensure(agent=f"agent{number % 3}", session_id=session_id, metadata={"n": number})
        item_log.append(session_id, [user_says(f"Please {number}"), agent_says(f"Asking about {number}")])
        client_actions.open_action(
            session_id, call_id="c", name=f"tool{number % 4}", arguments={"n": number, "list": [1, {"a": 2}]}
        )
        deciding.decide(session_id, "c", decision="approve", decider=Decider.person(bo))


def queries_for_the_page(client, **query):
    # What a first request of a session looks up once (the session, the person) is not the page's.
    client.get(URL, query)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(URL, query)
    assert response.status_code == 200
    return len(captured), parse(response)


@pytest.mark.parametrize("query", [{}, {"group": "tool", "q": "list"}])
def test_a_page_of_twenty_cards_costs_the_queries_of_a_page_of_one(approver_client, db, query):
    busy_inbox(1)
    one, page = queries_for_the_page(approver_client, **query)
    assert len(page.all("li.approval")) == 1
    busy_inbox(19)
    twenty, page = queries_for_the_page(approver_client, **query)
    cards = page.all("li.approval")
    assert len(cards) == 20 and all(card.one("figure.said-user") and card.one(".votes") for card in cards)
    assert twenty == one

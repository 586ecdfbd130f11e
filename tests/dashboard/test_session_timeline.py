import json
import re

import pytest
from django.urls import reverse

from historyhub.approvals import deciding
from historyhub.dashboard.timeline_cards import CHUNK_SIZE
from historyhub.history import client_actions, item_log, sessions
from tests.support.actors import HTMX, as_approver
from tests.support.html import parse

ANSWER = "Try this:\n```python\ndef main():\n    return 1\n```\nThen restart."


def page(client, session_id, **query):
    return client.get(reverse("dashboard:session", args=["default", session_id]), query)


def entry(page, text):
    """The first timeline entry whose text contains ``text``."""
    for article in page.all("article.entry"):
        if text in article.text():
            return article
    raise AssertionError(f"no entry contains {text!r}")


def badge(card):
    """The text and state class of the status badge in a card's head."""
    badge = card.one("summary .badge, .card > .badge")
    return badge.text(), [name for name in badge.classes if name.startswith("state-")]


def messages(page):
    return [text.text() for text in page.all("article.entry .bubble .markdown")]


@pytest.fixture
def chat(db):
    sessions.ensure(
        agent="supportAgent",
        session_id="chat-1",
        name="Espresso refund",
        metadata={"customer": "Ingrid", "priority": 2, "vip": True},
    )
    item_log.append(
        "chat-1",
        [
            {"type": "message", "role": "user", "content": "My machine arrived broken.\nThe box was crushed."},
            {
                "role": "assistant",
                "content": [{"type": "output_text", "text": ANSWER}],
                "usage": {"inputTokens": 120, "outputTokens": 30},
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "lookup_order",
                "arguments": '{"orderId": "A-7781", "include": ["items"]}',
                "createdAt": "2026-01-01T10:00:00Z",
            },
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": "delivered on Monday",
                "createdAt": "2026-01-01T10:00:01.500Z",
            },
        ],
    )
    return "chat-1"


def test_an_unknown_session_is_not_found(viewer_client, db):
    assert page(viewer_client, "nobody").status_code == 404


def test_the_header_shows_the_snapshot(viewer_client, chat):
    header = parse(page(viewer_client, chat)).one("#session-header")
    assert header.text("h1") == "Espresso refund"
    status = header.one(".badge[title=status]")
    assert status.text() == "active" and "status-active" in status.classes
    facts = header.terms()
    assert (facts["Session"], facts["Agent"]) == ("chat-1 Copy", "supportAgent")
    assert header.text("#session-id") == "chat-1" and header.one("button[data-copy]")["data-copy"] == "#session-id"
    assert (facts["customer"], facts["priority"], facts["vip"]) == ("Ingrid", "2", "true")
    assert (facts["input"], facts["output"]) == ("120", "30")


def test_the_header_counts_timeline_entries_and_the_agents_items_each_by_name(viewer_client, chat, db):
    facts = parse(page(viewer_client, chat)).one("#session-header").terms()
    assert (facts["On the timeline"], facts["In the agent's history"]) == ("3 entries", "4 items")
    # Client actions opened through the API are on the timeline but are no items of the agent's.
    sessions.ensure(agent="a", session_id="asks-only")
    client_actions.open_action("asks-only", call_id="c1", name="confirm", arguments={})
    facts = parse(page(viewer_client, "asks-only")).one("#session-header").terms()
    assert (facts["On the timeline"], facts["In the agent's history"]) == ("1 entry", "0 items")
    assert "Items" not in facts


def test_after_a_compaction_the_agents_items_are_counted_since_it(viewer_client, chat):
    item_log.compact(chat, [{"type": "compaction", "summary": "s"}, {"role": "user", "content": "go on"}])
    facts = parse(page(viewer_client, chat)).one("#session-header").terms()
    assert (facts["On the timeline"], facts["In the agent's history"]) == (
        "1 entry",
        "2 items since the last compaction",
    )


def test_messages_are_chat_bubbles_that_keep_line_breaks_and_code_blocks(viewer_client, chat):
    timeline = parse(page(viewer_client, chat))
    user = entry(timeline, "My machine arrived broken.")
    assert {"entry-message", "from-user"} <= set(user.classes)
    paragraph = user.one(".markdown p")
    assert paragraph.exact_text() == "My machine arrived broken.\nThe box was crushed." and paragraph.one("br")
    assistant = entry(timeline, "Try this:")
    assert "from-assistant" in assistant.classes
    code = assistant.one(".markdown pre > code")
    assert code.classes == ["language-python"] and code.exact_text() == "def main():\n    return 1\n"
    assert [paragraph.exact_text() for paragraph in assistant.all(".markdown > p")] == ["Try this:", "Then restart."]


def test_an_action_is_a_collapsible_card_with_arguments_status_duration_and_output(viewer_client, chat):
    card = entry(parse(page(viewer_client, chat)), "lookup_order")
    assert len(card.all("details")) == 1 and card.one("details > summary")
    assert badge(card) == ("completed", ["state-completed"])
    assert card.text(".duration") == "1.5 s"
    arguments = '{\n  "orderId": "A-7781",\n  "include": [\n    "items"\n  ]\n}'
    assert card.one("pre.json").exact_text() == arguments
    assert card.one("pre.output").exact_text() == "delivered on Monday"


def test_media_parts_render_as_images_players_and_links(viewer_client, db):
    sessions.ensure(agent="a", session_id="media")
    item_log.append(
        "media",
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "image", "mimeType": "image/png", "fileUri": "https://cdn.example.com/x.png"},
                    {"type": "audio", "mimeType": "audio/wav", "fileUri": "data:audio/wav;base64,UklGRg=="},
                    {"type": "video", "mimeType": "video/mp4", "fileUri": "/static/clip.mp4"},
                    {"type": "url", "mimeType": "text/html", "fileUri": "https://example.com/orders/7781"},
                    {"type": "file", "filePath": "receipts/r.pdf", "mimeType": "application/pdf"},
                    {"type": "file", "filePath": "https://files.example.com/r.pdf", "mimeType": "application/pdf"},
                ],
            }
        ],
    )
    media = parse(page(viewer_client, "media")).one("article.entry")
    # From another host, an image waits for a click (tests/dashboard/test_media.py).
    assert not media.all("img") and media.link("Load image from cdn.example.com")
    for player, source in (("audio", "data:audio/wav;base64,UklGRg=="), ("video", "/static/clip.mp4")):
        element = media.one(player)
        assert (element["src"], element.get("controls"), element["preload"]) == (source, "", "metadata")
    link = media.link("https://example.com/orders/7781")
    assert (link["href"], link["target"], link["rel"]) == (link.text(), "_blank", "noopener noreferrer")
    assert "receipts/r.pdf" in [code.text() for code in media.all("code")]
    assert media.link("https://files.example.com/r.pdf")["href"] == "https://files.example.com/r.pdf"


def test_only_web_data_and_site_urls_become_links_or_sources(viewer_client, db):
    sessions.ensure(agent="a", session_id="urls")
    item_log.append(
        "urls",
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "image", "mimeType": "image/png", "fileUri": "javascript:window.__pwned=1"},
                    {"type": "url", "mimeType": "text/html", "fileUri": " javascript:alert(1)"},
                    {"type": "url", "mimeType": "text/html", "fileUri": "data:text/html,<script>alert(1)</script>"},
                    {"type": "video", "mimeType": "video/mp4", "fileUri": "vbscript:x"},
                ],
            }
        ],
    )
    timeline = parse(page(viewer_client, "urls"))
    sources = [element["src"].strip() for element in timeline.all("[src]")]
    targets = [element["href"].strip() for element in timeline.all("[href]")]
    assert not [source for source in sources if source.startswith(("javascript", "vbscript"))]
    assert not [target for target in targets if target.startswith(("javascript", "data:"))]
    shown = [code.text() for code in timeline.all("article.entry code")]
    assert "javascript:window.__pwned=1" in shown and "data:text/html,<script>alert(1)</script>" in shown
    assert not timeline.all("script:-soup-contains('alert(1)')")


def test_a_waiting_client_action_offers_approve_and_reject_to_an_approver(approver_client, refund):
    card = entry(parse(page(approver_client, "refund-1")), "request_human_approval")
    assert badge(card) == ("waiting", ["state-waiting"])
    assert card.text(".description") == "Refund above the limit"
    form = card.one("form.decision")
    for label, value in (("Approve", "approve"), ("Reject", "reject")):
        button = form.button(label)
        assert (button["type"], button["name"], button["value"]) == ("submit", "decision", value)
    assert form.field("comment").tag == "textarea"
    arguments = form.field("arguments")
    assert arguments.tag == "textarea" and arguments.exact_text().startswith('{\n  "amount": 750,')
    assert (form["hx-target"], form["hx-swap"]) == ("closest .entry", "outerHTML")
    assert form.field("csrfmiddlewaretoken")


def test_a_viewer_sees_the_waiting_action_but_no_buttons(viewer_client, refund):
    card = entry(parse(page(viewer_client, "refund-1")), "request_human_approval")
    assert '"amount": 750' in card.one("pre.json").exact_text()
    assert not card.all("form, button, textarea") and "Approve" not in card.text() and "Reject" not in card.text()
    assert "only approvers decide" in card.text()


def test_a_resolved_client_action_shows_who_decided_when_why_and_both_arguments(viewer_client, refund):
    deciding.decide(
        "refund-1",
        "call_refund",
        decision="approve",
        comment="Box photo checks out.",
        arguments={"amount": 700, "currency": "USD"},
        decider=as_approver(),
    )
    card = entry(parse(page(viewer_client, "refund-1")), "request_human_approval")
    assert badge(card) == ("approved", ["state-approved"])
    resolution = card.one("dl.resolution")
    assert resolution.terms()["By"] == "owner" and resolution.terms()["Comment"] == "Box photo checks out."
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", resolution.terms()["When"])
    assert resolution.one("time")["datetime"]
    arguments = {
        figure.text("figcaption"): figure.one("pre.json").exact_text() for figure in card.all(".compare figure")
    }
    assert '"amount": 750' in arguments["Requested arguments"]
    assert '"amount": 700' in arguments["Approved arguments edited"]
    assert card.text("figure.edited figcaption .badge") == "edited"
    assert not card.all("form")


def test_a_rejected_client_action_shows_no_approved_arguments(viewer_client, refund):
    deciding.decide("refund-1", "call_refund", decision="reject", comment="Too much.", decider=as_approver())
    card = entry(parse(page(viewer_client, "refund-1")), "request_human_approval")
    assert badge(card) == ("rejected", ["state-rejected"])
    assert card.one("dl.resolution").terms()["Comment"] == "Too much."
    assert [figure.text("figcaption") for figure in card.all(".compare figure")] == ["Requested arguments"]


def test_a_result_supplied_by_the_client_shows_its_output(viewer_client, refund):
    client_actions.supply_result("refund-1", "call_refund", output={"refunded": True}, resolved_by="key:app")
    card = entry(parse(page(viewer_client, "refund-1")), "request_human_approval")
    assert badge(card) == ("completed", ["state-completed"])
    assert "Result" in [heading.text() for heading in card.all("h4")]
    assert '"refunded": true' in card.one("pre.output").exact_text()


def test_a_subagent_card_links_to_the_child_and_the_child_links_back(viewer_client, db):
    sessions.ensure(agent="researcher", session_id="parent")
    sessions.ensure(agent="sourceFinder", session_id="child", parent_session_id="parent", parent_call_id="call_sub")
    card = entry(parse(page(viewer_client, "parent")), "sourceFinder")
    assert card.link("sourceFinder")["href"] == "/p/default/sessions/child/" and card.text(".card-kind") == "Subagent"
    assert badge(card) == ("running", ["state-running"])
    lineage = parse(page(viewer_client, "child")).one("#session-header .lineage")
    assert lineage.text("dt") == "Subagent of" and lineage.link("parent")["href"] == "/p/default/sessions/parent/"
    assert lineage.text("code") == "call_sub" and "call call_sub" in lineage.text()


def test_a_subagent_item_naming_something_that_cannot_be_a_session_has_no_link(viewer_client, db):
    sessions.ensure(agent="a", session_id="odd")
    item_log.append("odd", [{"type": "subagent", "callId": "s1", "name": "helper", "childSessionId": "../../admin"}])
    card = entry(parse(page(viewer_client, "odd")), "helper")
    assert not card.all("[href]")


def test_skills_evaluations_and_the_completed_marker_render(viewer_client, db):
    sessions.ensure(agent="a", session_id="orcha")
    item_log.append(
        "orcha",
        [
            {"type": "skill", "id": "sk1", "name": "refund_policy", "summary": "Loaded the refund policy."},
            {
                "type": "evaluation",
                "id": "ev1",
                "name": "answer quality",
                "metrics": [
                    {"name": "helpfulness", "score": 0.9, "threshold": 0.7},
                    {"name": "accuracy", "score": 0.5, "threshold": 0.8},
                ],
            },
            {"type": "session_completed", "id": "done1", "summary": "All done."},
        ],
    )
    timeline = parse(page(viewer_client, "orcha"))
    skill = entry(timeline, "refund_policy")
    assert skill.text(".card-kind") == "Skill" and "Loaded the refund policy." in skill.text()
    evaluation = entry(timeline, "answer quality")
    metrics = [[cell.text() for cell in row.all("td")] for row in evaluation.all("tbody tr")]
    assert metrics == [["helpfulness", "0.90", "0.70", "pass"], ["accuracy", "0.50", "0.80", "fail"]]
    results = [row.one(".badge").classes for row in evaluation.all("tbody tr")]
    assert "state-completed" in results[0] and "state-failed" in results[1]
    assert evaluation.text(".card-head .badge") == "1 of 2 passed"
    completed = entry(timeline, "Session completed").one(".marker.completed")
    assert completed["role"] == "separator" and "Session completed: All done." in completed.text()


@pytest.fixture
def long_chat(db):
    sessions.ensure(agent="a", session_id="long")
    item_log.append("long", [{"role": "user", "content": f"message number {n}"} for n in range(1, CHUNK_SIZE + 6)])
    return "long"


def test_the_page_shows_the_newest_items_with_load_older_at_the_top(viewer_client, long_chat):
    timeline = parse(page(viewer_client, long_chat))
    assert messages(timeline) == [f"message number {n}" for n in range(6, CHUNK_SIZE + 6)]
    link = timeline.link("Load older")
    assert link["href"] == link["hx-get"] == "/p/default/sessions/long/?epoch=0&until=5"
    assert (link["hx-target"], link["hx-swap"]) == ("closest .timeline-control", "outerHTML")
    assert timeline.all(".timeline-control a, article.entry")[0] == link


def test_load_older_answers_htmx_with_the_older_entries_only(viewer_client, long_chat):
    older = parse(viewer_client.get("/p/default/sessions/long/", {"epoch": 0, "until": 5}, headers=HTMX))
    assert not older.all("html, body, #session-header")
    assert messages(older) == [f"message number {n}" for n in range(1, 6)]
    assert older.text(".marker.start") == "Start of the session" and not older.links("Load older")


def test_load_older_without_javascript_is_a_whole_page_with_a_way_back(viewer_client, long_chat):
    older = parse(page(viewer_client, long_chat, epoch=0, until=5))
    assert older.one("html") and messages(older) == [f"message number {n}" for n in range(1, 6)]
    assert older.link("Newer ›")["href"] == "?epoch=0&until=35"
    assert older.link("Back to the latest")["href"] == "/p/default/sessions/long/"
    assert not older.all("#timeline-poll")


@pytest.mark.parametrize("query", [{"epoch": "x"}, {"until": "-1"}])
def test_a_timeline_address_that_is_not_a_number_is_a_bad_request(viewer_client, long_chat, query):
    assert page(viewer_client, long_chat, **query).status_code == 400


def test_an_epoch_after_the_current_one_is_not_found(viewer_client, long_chat):
    assert page(viewer_client, long_chat, epoch=1).status_code == 404


def test_agent_text_is_escaped_everywhere_on_the_timeline(viewer_client, db):
    payload = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">'
    sessions.ensure(agent="a", session_id="xss", name=payload, metadata={"note": payload})
    item_log.append(
        "xss",
        [
            {"role": "user", "content": payload},
            {"type": "function_call", "call_id": "x1", "name": payload, "arguments": json.dumps({"q": payload})},
            {"type": "function_call_output", "call_id": "x1", "output": payload},
            {"type": "skill", "id": "s1", "name": payload},
            {"type": "evaluation", "id": "e1", "metrics": [{"name": payload, "score": 1, "threshold": 0}]},
        ],
    )
    client_actions.open_action(
        "xss", call_id="x2", name="approve_this", arguments={"text": payload}, description=payload
    )
    timeline = parse(page(viewer_client, "xss"))
    # Escaped, the payload is text wherever it shows; unescaped, it would be a script and an image that run it.
    assert not timeline.all("script:-soup-contains('__pwned'), img[onerror], [onerror]")
    header = timeline.one("#session-header")
    assert header.text("h1") == payload and header.terms()["note"] == payload
    assert messages(timeline) == [payload]
    assert payload in [card.text("strong.name") for card in timeline.all("details.action")]
    assert payload in [output.exact_text() for output in timeline.all("pre.output")]
    assert payload in [cell.text() for cell in timeline.all(".card.evaluation td")]
    assert timeline.text(".description") == payload


def test_a_tool_output_holding_json_is_pretty_printed(viewer_client, db):
    sessions.ensure(agent="a", session_id="json-output")
    item_log.append(
        "json-output",
        [
            {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": '{"orders": 3, "customer": "Alice"}'},
        ],
    )
    card = entry(parse(page(viewer_client, "json-output")), "lookup")
    assert card.one("pre.output").exact_text() == '{\n  "orders": 3,\n  "customer": "Alice"\n}'


def test_a_client_action_the_agent_wrote_as_settled_shows_its_outcome_without_buttons(viewer_client, db):
    sessions.ensure(agent="a", session_id="odd-types")
    item_log.append(
        "odd-types", [{"type": "client_action", "callId": "done-1", "name": "notify", "status": "completed"}]
    )
    card = entry(parse(page(viewer_client, "odd-types")), "notify")
    assert badge(card) == ("completed", ["state-completed"])
    assert '"status": "completed"' in card.one("pre.json").exact_text() and not card.all("form")

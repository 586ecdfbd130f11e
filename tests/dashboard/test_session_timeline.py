import json
import re

import pytest
from django.urls import reverse

from historyhub.dashboard.timeline import CHUNK_SIZE
from historyhub.history import client_actions, item_log, sessions
from tests.dashboard.conftest import HTMX, text_of

ANSWER = "Try this:\n```python\ndef main():\n    return 1\n```\nThen restart."


def page(client, session_id, **query):
    return client.get(reverse("dashboard:session", args=[session_id]), query)


def entry_html(html, fragment):
    """The <article> of the timeline entry that contains ``fragment``."""
    for article in re.findall(r"<article id=\"entry-\d+\".*?</article>", html, re.DOTALL):
        if fragment in article:
            return article
    raise AssertionError(f"no entry contains {fragment!r}")


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
    html = text_of(page(viewer_client, chat))
    header = html[
        html.index('<header id="session-header"') : html.index("</header>", html.index('id="session-header"'))
    ]
    assert "<h1>Espresso refund</h1>" in header
    assert "chat-1" in header and "supportAgent" in header
    assert '<span class="badge status-active" title="status">active</span>' in header
    assert "<dt>customer</dt><dd>Ingrid</dd>" in header
    assert "<dt>priority</dt><dd>2</dd>" in header and "<dt>vip</dt><dd>true</dd>" in header
    assert "<dt>input</dt><dd>120</dd>" in header and "<dt>output</dt><dd>30</dd>" in header


def test_messages_are_chat_bubbles_that_keep_line_breaks_and_code_blocks(viewer_client, chat):
    html = text_of(page(viewer_client, chat))
    user = entry_html(html, "My machine arrived broken.")
    assert 'class="entry entry-message from-user"' in user
    assert '<p class="text">My machine arrived broken.\nThe box was crushed.</p>' in user
    assistant = entry_html(html, "Try this:")
    assert "from-assistant" in assistant
    assert '<pre class="code" data-language="python"><code>def main():\n    return 1</code></pre>' in assistant
    assert '<p class="text">Then restart.</p>' in assistant


def test_an_action_is_a_collapsible_card_with_arguments_status_duration_and_output(viewer_client, chat):
    card = entry_html(text_of(page(viewer_client, chat)), "lookup_order")
    assert card.count("<details") == 1 and "<summary>" in card
    assert '<span class="badge state-completed">completed</span>' in card
    assert "1.5 s" in card
    arguments = '{\n  "orderId": "A-7781",\n  "include": [\n    "items"\n  ]\n}'
    assert arguments.replace('"', "&quot;") in card
    assert '<pre class="output">delivered on Monday</pre>' in card


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
    html = entry_html(text_of(page(viewer_client, "media")), "x.png")
    assert '<img src="https://cdn.example.com/x.png" alt="Image (image/png)" loading="lazy">' in html
    assert '<audio controls preload="metadata" src="data:audio/wav;base64,UklGRg=="></audio>' in html
    assert '<video controls preload="metadata" src="/static/clip.mp4"></video>' in html
    assert '<a href="https://example.com/orders/7781" target="_blank" rel="noopener noreferrer">' in html
    assert "<code>receipts/r.pdf</code>" in html
    assert '<a href="https://files.example.com/r.pdf"' in html


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
    html = text_of(page(viewer_client, "urls"))
    assert 'src="javascript' not in html and 'href=" javascript' not in html
    assert 'href="data:' not in html and 'src="vbscript' not in html
    assert "<code>javascript:window.__pwned=1</code>" in html
    assert "<code>data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;</code>" in html


def test_a_waiting_client_action_offers_approve_and_reject_to_an_approver(approver_client, refund):
    card = entry_html(text_of(page(approver_client, "refund-1")), "request human approval")
    assert '<span class="badge state-waiting">waiting</span>' in card
    assert "Refund above the limit" in card
    assert re.search(r'<button type="submit" name="decision" value="approve" class="approve">Approve</button>', card)
    assert re.search(r'<button type="submit" name="decision" value="reject" class="reject">Reject</button>', card)
    assert 'name="comment"' in card
    assert '<textarea id="arguments-' in card and "{\n  &quot;amount&quot;: 750," in card
    assert 'hx-target="closest .entry" hx-swap="outerHTML"' in card
    assert 'name="csrfmiddlewaretoken"' in card


def test_a_viewer_sees_the_waiting_action_but_no_buttons(viewer_client, refund):
    card = entry_html(text_of(page(viewer_client, "refund-1")), "request human approval")
    assert "&quot;amount&quot;: 750" in card
    assert "Approve" not in card and "Reject" not in card and "<form" not in card
    assert "only approvers decide" in card


def test_a_resolved_client_action_shows_who_decided_when_why_and_both_arguments(viewer_client, refund):
    client_actions.decide(
        "refund-1",
        "call_refund",
        decision="approve",
        comment="Box photo checks out.",
        arguments={"amount": 700, "currency": "USD"},
        resolved_by="owner",
    )
    card = entry_html(text_of(page(viewer_client, "refund-1")), "request human approval")
    assert '<span class="badge state-approved">approved</span>' in card
    assert "<dt>By</dt><dd>owner</dd>" in card
    assert "Box photo checks out." in card
    assert re.search(r"<dt>When</dt><dd><time datetime=\"[^\"]+\">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</time>", card)
    assert "Requested arguments" in card and "&quot;amount&quot;: 750" in card
    assert "Approved arguments" in card and "&quot;amount&quot;: 700" in card and ">edited</span>" in card
    assert "<form" not in card


def test_a_rejected_client_action_shows_no_approved_arguments(viewer_client, refund):
    client_actions.decide("refund-1", "call_refund", decision="reject", comment="Too much.", resolved_by="owner")
    card = entry_html(text_of(page(viewer_client, "refund-1")), "request human approval")
    assert '<span class="badge state-rejected">rejected</span>' in card
    assert "Too much." in card and "Approved arguments" not in card


def test_a_result_supplied_by_the_client_shows_its_output(viewer_client, refund):
    client_actions.supply_result("refund-1", "call_refund", output={"refunded": True}, resolved_by="key:app")
    card = entry_html(text_of(page(viewer_client, "refund-1")), "request human approval")
    assert '<span class="badge state-completed">completed</span>' in card
    assert "Result" in card and "&quot;refunded&quot;: true" in card


def test_a_subagent_card_links_to_the_child_and_the_child_links_back(viewer_client, db):
    sessions.ensure(agent="researcher", session_id="parent")
    sessions.ensure(agent="sourceFinder", session_id="child", parent_session_id="parent", parent_call_id="call_sub")
    card = entry_html(text_of(page(viewer_client, "parent")), "sourceFinder")
    assert 'href="/sessions/child/"' in card and "Subagent" in card
    assert '<span class="badge state-running">running</span>' in card
    header = text_of(page(viewer_client, "child"))
    assert 'Subagent of</dt><dd><a href="/sessions/parent/">parent</a>' in header
    assert "call <code>call_sub</code>" in header


def test_a_subagent_item_naming_something_that_cannot_be_a_session_has_no_link(viewer_client, db):
    sessions.ensure(agent="a", session_id="odd")
    item_log.append("odd", [{"type": "subagent", "callId": "s1", "name": "helper", "childSessionId": "../../admin"}])
    card = entry_html(text_of(page(viewer_client, "odd")), "helper")
    assert "href=" not in card


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
    html = text_of(page(viewer_client, "orcha"))
    skill = entry_html(html, "refund_policy")
    assert "Skill" in skill and "Loaded the refund policy." in skill
    evaluation = entry_html(html, "answer quality")
    assert re.search(
        r"<td>helpfulness</td>\s*<td class=\"num\">0.90</td>\s*<td class=\"num\">0.70</td>\s*"
        r"<td><span class=\"badge state-completed\">pass</span>",
        evaluation,
    )
    assert re.search(
        r"<td>accuracy</td>\s*<td class=\"num\">0.50</td>\s*<td class=\"num\">0.80</td>\s*"
        r"<td><span class=\"badge state-failed\">fail</span>",
        evaluation,
    )
    assert "1 of 2 passed" in evaluation
    completed = entry_html(html, "Session completed")
    assert "All done." in completed and 'class="marker completed"' in completed


@pytest.fixture
def long_chat(db):
    sessions.ensure(agent="a", session_id="long")
    item_log.append("long", [{"role": "user", "content": f"message number {n}"} for n in range(1, CHUNK_SIZE + 6)])
    return "long"


def test_the_page_shows_the_newest_items_with_load_older_at_the_top(viewer_client, long_chat):
    html = text_of(page(viewer_client, long_chat))
    assert "message number 6<" in html and f"message number {CHUNK_SIZE + 5}<" in html
    assert "message number 5<" not in html
    link = re.search(
        r'<a class="button secondary" href="([^"]+)"\s+hx-get="([^"]+)"\s+'
        r'hx-target="closest .timeline-control" hx-swap="outerHTML">Load older</a>',
        html,
    )
    assert link.group(1) == link.group(2) == "/sessions/long/?epoch=0&amp;until=5"
    assert html.index("Load older") < html.index("message number 6<")


def test_load_older_answers_htmx_with_the_older_entries_only(viewer_client, long_chat):
    html = text_of(viewer_client.get("/sessions/long/", {"epoch": 0, "until": 5}, headers=HTMX))
    assert "<html" not in html and "session-header" not in html
    assert [int(n) for n in re.findall(r"message number (\d+)<", html)] == [1, 2, 3, 4, 5]
    assert "Start of the session" in html and "Load older" not in html


def test_load_older_without_javascript_is_a_whole_page_with_a_way_back(viewer_client, long_chat):
    html = text_of(page(viewer_client, long_chat, epoch=0, until=5))
    assert "<html" in html and "message number 1<" in html and "message number 6<" not in html
    assert 'href="?epoch=0&amp;until=35">Newer' in html and "Back to the latest" in html
    assert 'id="timeline-poll"' not in html


@pytest.mark.parametrize("query", [{"epoch": "x"}, {"until": "-1"}])
def test_a_timeline_address_that_is_not_a_number_is_a_bad_request(viewer_client, long_chat, query):
    assert page(viewer_client, long_chat, **query).status_code == 400


def test_an_epoch_after_the_current_one_is_not_found(viewer_client, long_chat):
    assert page(viewer_client, long_chat, epoch=1).status_code == 404


@pytest.fixture
def compacted(db):
    sessions.ensure(agent="a", session_id="compacted")
    item_log.append("compacted", [{"role": "user", "content": "the archived question"}])
    item_log.compact(
        "compacted",
        [
            {"type": "compaction", "summary": "earlier work"},
            {"role": "user", "content": "the question after compaction"},
        ],
    )
    return "compacted"


def test_a_compaction_marker_heads_the_oldest_page_with_a_way_to_the_archive(viewer_client, compacted):
    html = text_of(page(viewer_client, compacted))
    assert "History compacted here" in html
    assert "the question after compaction" in html and "the archived question" not in html
    assert re.search(
        r'hx-get="/sessions/compacted/\?epoch=0"\s+hx-target="closest .timeline-control" '
        r'hx-swap="outerHTML">Show archived history</a>',
        html,
    )
    assert "Start of the session" not in html


def test_the_archived_history_loads_in_place(viewer_client, compacted):
    html = text_of(viewer_client.get("/sessions/compacted/", {"epoch": 0}, headers=HTMX))
    assert "the archived question" in html and "Start of the session" in html
    assert "the question after compaction" not in html


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
    html = text_of(page(viewer_client, "xss"))
    assert "<script>window" not in html and "<img src=x" not in html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;" in html


def test_a_tool_output_holding_json_is_pretty_printed(viewer_client, db):
    sessions.ensure(agent="a", session_id="json-output")
    item_log.append(
        "json-output",
        [
            {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": '{"orders": 3, "customer": "Alice"}'},
        ],
    )
    card = entry_html(text_of(page(viewer_client, "json-output")), "lookup")
    assert '<pre class="output">{\n  &quot;orders&quot;: 3,\n  &quot;customer&quot;: &quot;Alice&quot;\n}</pre>' in card


def test_a_client_action_the_agent_wrote_as_settled_shows_its_outcome_without_buttons(viewer_client, db):
    sessions.ensure(agent="a", session_id="odd-types")
    item_log.append(
        "odd-types", [{"type": "client_action", "callId": "done-1", "name": "notify", "status": "completed"}]
    )
    card = entry_html(text_of(page(viewer_client, "odd-types")), "notify")
    assert '<span class="badge state-completed">completed</span>' in card
    assert "&quot;status&quot;: &quot;completed&quot;" in card and "<form" not in card

import re
from datetime import UTC

import pytest
import time_machine
from django.urls import reverse

from historyhub.dashboard.sessions_page import SESSIONS_COUNT_LIMIT, SESSIONS_PAGE_SIZE
from historyhub.history import client_actions, item_log, sessions
from historyhub.history.models import Session
from tests.support.actors import HTMX
from tests.support.html import parse

URL = reverse("dashboard:sessions", args=["default"])


def poll_url(response):
    """Where the results section asks again when the live stream says something changed."""
    results = parse(response).one("#session-results")
    assert results["hx-trigger"] == "sse:changed"
    return results["hx-get"]


def rows(response):
    """The session ids of the table's rows, in order."""
    links = parse(response).all("table.sessions tbody tr a.session-link")
    return [re.fullmatch(r"/p/default/sessions/([^/]+)/", link["href"]).group(1) for link in links]


def row(page, session_id):
    return page.one(f"tbody tr:has(a.session-link[href='/p/default/sessions/{session_id}/'])")


@pytest.fixture
def fleet(db):
    sessions.ensure(
        agent="supportAgent", session_id="support-1", name="Where is my order?", metadata={"customer": "Alice"}
    )
    item_log.append("support-1", [{"role": "user", "content": "Where is my order #4411?"}])
    sessions.ensure(agent="researchAgent", session_id="research-1", name="Battery brief")
    item_log.append("research-1", [{"role": "user", "content": "Summarise battery recycling."}])
    sessions.update("research-1", status="completed", run_status="completed")
    sessions.ensure(agent="supportAgent", session_id="support-2", name="Refund")
    item_log.append("support-2", [{"role": "assistant", "content": "A refund needs approval."}])
    client_actions.open_action("support-2", call_id="c1", name="refund", arguments={"amount": 5})


def test_it_lists_sessions_most_recently_updated_first(viewer_client, fleet):
    assert rows(viewer_client.get(URL)) == ["support-2", "research-1", "support-1"]
    item_log.append("support-1", [{"role": "assistant", "content": "It arrives Thursday."}])
    assert rows(viewer_client.get(URL)) == ["support-1", "support-2", "research-1"]


def test_a_row_shows_agent_name_id_badges_waiting_count_and_last_message(viewer_client, fleet):
    refund = row(parse(viewer_client.get(URL)), "support-2")
    assert refund.text("a.session-link") == "Refund" and refund.text("td[data-label=Session]") == "Refund support-2"
    assert refund.text(".agent") == "supportAgent"
    status = refund.one(".badge[title=status]")
    assert status.text() == "active" and "status-active" in status.classes
    run_status = refund.one(".badge[title='run status']")
    assert run_status.text() == "waiting for client action" and "run-waiting_for_client_action" in run_status.classes
    assert refund.text(".waiting-count") == "1"
    assert refund.text(".preview") == "A refund needs approval."
    updated = refund.one("time[data-local]")
    assert updated.text() == Session.objects.get(pk="support-2").updated_at.astimezone(UTC).strftime(
        "%Y-%m-%d %H:%M UTC"
    )


@pytest.mark.parametrize(
    "query, expected",
    [
        ({"agent": "researchAgent"}, ["research-1"]),
        ({"status": "completed"}, ["research-1"]),
        ({"runStatus": "waiting_for_client_action"}, ["support-2"]),
        ({"waiting": "on"}, ["support-2"]),
        ({"agent": "supportAgent", "status": "active"}, ["support-2", "support-1"]),
    ],
)
def test_the_filters_narrow_the_table(viewer_client, fleet, query, expected):
    assert rows(viewer_client.get(URL, query)) == expected


@pytest.mark.parametrize(
    "q, expected",
    [
        ("#4411", ["support-1"]),
        ("battery", ["research-1"]),
        ("alice", ["support-1"]),
        ("support-2", ["support-2"]),
        ("nothing like this", []),
    ],
)
def test_the_search_box_matches_ids_names_metadata_and_message_text(viewer_client, fleet, q, expected):
    assert rows(viewer_client.get(URL, {"q": q})) == expected


def test_a_filter_value_that_is_not_valid_is_ignored(viewer_client, fleet):
    response = viewer_client.get(URL, {"status": "sleeping", "page": "zero"})
    assert response.status_code == 200
    assert rows(response) == ["support-2", "research-1", "support-1"]


def test_the_filter_form_updates_the_table_as_you_type_and_keeps_the_url(viewer_client, fleet):
    form = parse(viewer_client.get(URL)).one("form.filters")
    assert (form["hx-get"], form["hx-target"], form["hx-push-url"]) == ("/p/default/", "#session-results", "true")
    triggers = [trigger.strip() for trigger in form["hx-trigger"].split(",")]
    assert "input changed delay:300ms from:find input[type=search]" in triggers
    assert "search from:find input[type=search]" in triggers
    assert form.field("q")["type"] == "search"


def test_an_htmx_request_gets_only_the_table(viewer_client, fleet):
    response = viewer_client.get(URL, {"q": "battery"}, headers=HTMX)
    assert parse(response).one(":root")["id"] == "session-results"
    assert rows(response) == ["research-1"]
    assert response["Vary"] and "HX-Request" in response["Vary"]


@pytest.fixture
def many(db):
    for number in range(SESSIONS_PAGE_SIZE + 2):
        sessions.ensure(agent="bulk", session_id=f"bulk-{number:02d}")


def test_pagination_links_work_with_and_without_javascript(viewer_client, many):
    first = viewer_client.get(URL, {"agent": "bulk"})
    assert len(rows(first)) == SESSIONS_PAGE_SIZE
    page = parse(first)
    assert page.text(".pagination .page-of") == "Page 1 of 2"
    older = page.link(rel="next")
    assert (older["href"], older["hx-get"]) == ("?agent=bulk&page=2", "/p/default/?agent=bulk&page=2")
    second = viewer_client.get(URL, {"agent": "bulk", "page": 2})
    assert rows(second) == ["bulk-01", "bulk-00"]
    assert parse(second).link(rel="prev")["href"] == "?agent=bulk&page=1"


def test_a_page_past_the_end_offers_the_first_page(viewer_client, many):
    page = parse(viewer_client.get(URL, {"page": 9}))
    assert page.text(".empty").startswith("No sessions on page 9.")
    assert page.link("Back to the first page")["href"] == "?"


def test_on_a_live_change_the_table_refreshes_with_its_filters_and_keeps_the_address(viewer_client, fleet):
    poll = poll_url(viewer_client.get(URL, {"agent": "supportAgent"}))
    assert re.fullmatch(r"/p/default/\?agent=supportAgent&live=1&since=\w+", poll)

    item_log.append("support-1", [{"role": "assistant", "content": "Shipped."}])
    changed = viewer_client.get(poll, headers=HTMX)
    assert changed.status_code == 200
    assert rows(changed) == ["support-1", "support-2"]
    assert row(parse(changed), "support-1").text(".preview") == "Shipped."
    assert "HX-Push-Url" not in changed


def test_a_live_refresh_of_an_unchanged_table_answers_no_content(viewer_client, fleet):
    """The stream says "changed" for any change it heard, and once on connecting: swapping an identical
    table under the pointer would lose a click on one of its links."""
    poll = poll_url(viewer_client.get(URL))
    assert viewer_client.get(poll, headers=HTMX).status_code == 204
    item_log.append("research-1", [{"role": "user", "content": "Again."}])
    changed = viewer_client.get(poll, headers=HTMX)
    assert changed.status_code == 200 and row(parse(changed), "research-1").text(".preview") == "Again."
    assert viewer_client.get(poll_url(changed), headers=HTMX).status_code == 204


def test_a_deleted_session_leaves_the_refreshed_table(viewer_client, fleet):
    poll = poll_url(viewer_client.get(URL))
    sessions.delete("support-1", actor="tests")
    assert rows(viewer_client.get(poll, headers=HTMX)) == ["support-2", "research-1"]


def test_agent_text_in_the_table_is_escaped(viewer_client, db):
    sessions.ensure(agent="evil", session_id="evil-1", name="<b>bold</b>")
    item_log.append("evil-1", [{"role": "user", "content": "<script>window.__pwned=1</script>"}])
    page = parse(viewer_client.get(URL))
    evil = row(page, "evil-1")
    assert evil.text("a.session-link") == "<b>bold</b>"
    assert evil.text(".preview") == "<script>window.__pwned=1</script>"
    assert not page.all("b:-soup-contains('bold')") and not page.all("script:-soup-contains('__pwned')")


def test_the_page_refuses_a_post(approver_client):
    assert approver_client.post(URL).status_code in (403, 405)


def test_the_agent_filter_lists_every_agent_once_in_order(viewer_client, fleet):
    sessions.ensure(agent="aardvarkAgent", session_id="aardvark-1")
    sessions.ensure(agent="zebraAgent", session_id="zebra-1")
    sessions.ensure(agent="zebraAgent", session_id="zebra-2")

    agent = parse(viewer_client.get(URL)).field("agent")

    options = [option["value"] for option in agent.all("option")]
    assert agent.tag == "select" and options == ["", "aardvarkAgent", "researchAgent", "supportAgent", "zebraAgent"]


@pytest.fixture
def crowd(db):
    """More sessions than the page counts, each a crowd member by name."""
    for number in range(SESSIONS_COUNT_LIMIT + SESSIONS_PAGE_SIZE + 5):
        sessions.ensure(agent="crowd", session_id=f"crowd-{number:03d}", name=f"Crowd member {number}")


def test_past_the_count_limit_the_table_says_more_than_and_still_pages_to_the_end(viewer_client, crowd):
    total = SESSIONS_COUNT_LIMIT + SESSIONS_PAGE_SIZE + 5
    for query in ({}, {"q": "member"}):
        first = parse(viewer_client.get(URL, query))
        assert first.text(".result-count") == f"More than {SESSIONS_COUNT_LIMIT} sessions"
        assert first.text(".page-of") == f"Page 1 of {SESSIONS_COUNT_LIMIT // SESSIONS_PAGE_SIZE}+"
        assert first.link(rel="next")

    last_page = -(-total // SESSIONS_PAGE_SIZE)
    beyond = viewer_client.get(URL, {"q": "member", "page": last_page - 1})
    assert len(rows(beyond)) == SESSIONS_PAGE_SIZE
    assert parse(beyond).text(".page-of") == f"Page {last_page - 1} of {last_page - 1}+"

    last = viewer_client.get(URL, {"q": "member", "page": last_page})
    assert rows(last) == [f"crowd-{number:03d}" for number in range(4, -1, -1)]
    page = parse(last)
    assert page.text(".result-count") == f"{total} sessions"
    assert page.text(".page-of") == f"Page {last_page} of {last_page}"
    assert not page.all("a[rel=next]")


def test_the_preview_reads_a_markdown_message_as_plain_text(viewer_client, db):
    sessions.ensure(agent="coder", session_id="code-1")
    message = "## Fixed\n\nUse **this** [helper](https://example.com):\n\n```python\nprint('hi')\n```"
    item_log.append("code-1", [{"role": "assistant", "content": message}])
    preview = row(parse(viewer_client.get(URL)), "code-1").text(".preview")
    assert preview == "Fixed Use this helper: print('hi')"


def test_the_preview_strips_fences_headings_emphasis_quotes_tables_and_link_targets(viewer_client, db):
    sessions.ensure(agent="coder", session_id="code-2")
    message = "> **Note:** see [the *guide*](https://example.com/g) and `make test`\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    item_log.append("code-2", [{"role": "assistant", "content": message}])
    preview = row(parse(viewer_client.get(URL)), "code-2").text(".preview")
    assert preview == "Note: see the guide and make test a b 1 2"


def test_the_preview_of_markup_is_escaped_text(viewer_client, db):
    sessions.ensure(agent="a", session_id="xss-preview")
    item_log.append("xss-preview", [{"role": "user", "content": "<script>window.__pwned=1</script> **hi**"}])
    response = viewer_client.get(URL)
    cell = row(parse(response), "xss-preview").one(".preview")
    assert not cell.all("script") and cell.text() == "<script>window.__pwned=1</script> hi"
    assert b"&lt;script&gt;window.__pwned=1&lt;/script&gt; hi" in response.content


def test_a_session_without_a_message_that_says_something_shows_no_text(viewer_client, db):
    sessions.ensure(agent="a", session_id="quiet")
    client_actions.open_action("quiet", call_id="c1", name="confirm", arguments={})
    sessions.ensure(agent="a", session_id="fenced")
    item_log.append("fenced", [{"role": "assistant", "content": "```\n```"}])
    page = parse(viewer_client.get(URL))
    for session_id in ("quiet", "fenced"):
        assert row(page, session_id).one(".preview .no-text").text() == "(no text)"


def test_a_run_status_equal_to_the_status_shows_one_badge(viewer_client, db):
    sessions.ensure(agent="supportAgent", session_id="done-1")
    sessions.update("done-1", status="completed", run_status="completed")
    badges = row(parse(viewer_client.get(URL)), "done-1").all(".badges .badge")
    assert [badge.text() for badge in badges] == ["completed"]


def test_once_its_only_action_expires_the_row_and_the_page_say_running_as_the_filter_does(viewer_client, db):
    sessions.ensure(agent="supportAgent", session_id="late-1")
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        client_actions.open_action("late-1", call_id="c1", name="refund", arguments={}, expires_at="2026-12-01T12:05Z")

    with time_machine.travel("2026-12-01T12:05:00Z", tick=False):
        listed = parse(viewer_client.get(URL, {"runStatus": "running"}))
        header = parse(viewer_client.get(reverse("dashboard:session", args=["default", "late-1"]))).one(
            "#session-header"
        )

    assert row(listed, "late-1").text(".badge[title='run status']") == "running"
    assert header.text(".badge[title='run status']") == "running"


def test_a_long_last_message_is_previewed_in_140_characters_ending_in_an_ellipsis(viewer_client, db):
    sessions.ensure(agent="supportAgent", session_id="long-1")
    item_log.append("long-1", [{"role": "user", "content": "**Refund** " + "please " * 100}])
    preview = row(parse(viewer_client.get(URL)), "long-1").text(".preview")
    assert preview == ("Refund " + "please " * 100)[:139] + "…"

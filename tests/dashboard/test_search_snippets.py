"""A search's results say where each session matched: a few words around ``q`` with ``q`` marked, escaped
(docs/dashboard.md, "Reading"; the search itself: docs/search.md)."""

import pytest
from django.urls import reverse

from historyhub.history import item_log, sessions
from tests.support.actors import HTMX
from tests.support.html import parse

URL = reverse("dashboard:sessions", args=["default"])


def row(client, q, session_id, **headers):
    page = parse(client.get(URL, {"q": q}, headers=headers))
    return page.one(f"tbody tr:has(a.session-link[href='/p/default/sessions/{session_id}/'])")


def marks(element):
    return [mark.text() for mark in element.all("mark.match")]


@pytest.fixture
def support(db):
    sessions.ensure(agent="supportAgent", session_id="support-1", name="Broken espresso machine")
    item_log.append(
        "support-1",
        [
            {"role": "user", "content": "My machine arrived broken, I want a refund."},
            {"role": "assistant", "content": "I asked for approval of the **refund** of $750."},
            {"role": "user", "content": "Thanks!"},
        ],
    )
    return "support-1"


def test_a_message_match_shows_the_newest_message_holding_q_with_q_marked(viewer_client, support):
    match = row(viewer_client, "refund", support).one("p.search-match")
    # Markdown's marks are gone from the snippet: it reads as the message reads.
    assert match.text() == "In a message: I asked for approval of the refund of $750."
    assert marks(match) == ["refund"]


def test_q_is_marked_in_any_case_each_time_it_occurs(viewer_client, support):
    item_log.append(support, [{"role": "assistant", "content": "Refund sent: REFUND-77, refund done."}])
    assert marks(row(viewer_client, "rEfUnD", support).one("p.search-match")) == ["Refund", "REFUND", "refund"]


def test_markup_in_the_message_and_in_q_stays_escaped_text(viewer_client, db):
    sessions.ensure(agent="a", session_id="xss")
    payload = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1"> a refund'
    item_log.append("xss", [{"role": "user", "content": payload}])
    for q in ("refund", "<script>", 'onerror="window'):
        response = viewer_client.get(URL, {"q": q})
        match = parse(response).one("p.search-match")
        assert not match.all("script, img, [onerror]")
        assert match.text() == f"In a message: {payload}"
        assert marks(match) == [q]
        assert b"&lt;script&gt;window.__pwned=1&lt;/script&gt;" in response.content


def test_a_long_message_shows_a_few_words_around_the_match(viewer_client, db):
    sessions.ensure(agent="a", session_id="long")
    text = " ".join(f"w{n}" for n in range(3000)) + " zeppelin " + " ".join(f"v{n}" for n in range(3000))
    item_log.append("long", [{"role": "assistant", "content": text}])
    match = row(viewer_client, "zeppelin", "long").one("p.search-match")
    shown = match.text().removeprefix("In a message: ")
    assert shown.startswith("…") and shown.endswith("…") and len(shown) < 250
    assert marks(match) == ["zeppelin"] and "w2999 zeppelin v0" in shown


def test_a_metadata_match_names_the_key_whose_value_holds_q(viewer_client, db):
    sessions.ensure(agent="a", session_id="billing", metadata={"plan": "pro", "customer": "cus_0031337"})
    match = row(viewer_client, "0031337", "billing").one("p.search-match")
    assert match.text() == "In metadata, customer: cus_0031337" and marks(match) == ["0031337"]


def test_a_match_in_the_name_or_id_is_marked_where_it_shows(viewer_client, support):
    found = row(viewer_client, "espresso", support)
    assert marks(found.one("a.session-link")) == ["espresso"] and not found.all("p.search-match")
    assert found.text("a.session-link") == "Broken espresso machine"
    assert marks(row(viewer_client, "port-1", support).one("td[data-label=Session] .mono")) == ["port-1"]


def test_the_table_htmx_swaps_in_has_the_snippets_too(viewer_client, support):
    match = row(viewer_client, "approval", support, **HTMX).one("p.search-match")
    assert marks(match) == ["approval"]


def test_without_q_nothing_is_marked(viewer_client, support):
    page = parse(viewer_client.get(URL))
    assert not page.all("mark.match, p.search-match")

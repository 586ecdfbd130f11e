"""Where a compaction began the history the agent reads: its marker with the summary, and what it archived folded
above it, muted and labelled (docs/dashboard.md, "Reading")."""

import pytest
from django.urls import reverse

from historyhub.history import item_log, sessions
from tests.support.actors import HTMX
from tests.support.html import parse


def page(client, session_id, **query):
    return client.get(reverse("dashboard:session", args=["default", session_id]), query)


def messages(element):
    return [text.text() for text in element.all("article.entry .bubble .markdown")]


@pytest.fixture
def compacted(db):
    sessions.ensure(agent="a", session_id="compacted")
    item_log.append("compacted", [{"role": "user", "content": "the archived question"}])
    item_log.compact(
        "compacted",
        [
            {"type": "compaction", "summary": "The user asked about **refunds**; all answered."},
            {"role": "user", "content": "the question after compaction"},
        ],
    )
    return "compacted"


def test_the_marker_shows_the_compaction_summary_where_the_history_was_compacted(viewer_client, compacted):
    timeline = parse(page(viewer_client, compacted)).one("#timeline")
    marker = timeline.one(".marker.compaction")
    assert marker.text().startswith("History compacted here. What is above is archived")
    summary = marker.one(".compaction-summary .markdown")
    assert summary.text() == "The user asked about refunds; all answered." and summary.one("strong").text() == "refunds"
    # Above it what was archived, below it what the agent reads now.
    order = [element for element in timeline.children if element.tag in ("details", "div", "article")]
    assert [element.classes[:2] for element in order] == [
        ["archived-history"],
        ["marker", "compaction"],
        ["entry", "entry-message"],
    ]
    assert messages(order[2]) == ["the question after compaction"] and "archived" not in order[2].classes


def test_the_archived_history_is_folded_muted_and_labelled(viewer_client, compacted):
    archive = parse(page(viewer_client, compacted)).one("details.archived-history")
    assert archive.get("open") is None
    assert archive.text("summary") == "Archived history 1 entry from before this compaction"
    [entry] = archive.all("article.entry")
    assert "archived" in entry.classes and entry.text(".archived-label") == "Archived"
    assert messages(entry) == ["the archived question"]
    assert archive.text(".marker.start") == "Start of the session"


def test_an_encrypted_summary_is_said_to_be_for_the_model_only(viewer_client, db):
    sessions.ensure(agent="a", session_id="sealed")
    item_log.append("sealed", [{"role": "user", "content": "before"}])
    item_log.compact(
        "sealed", [{"role": "user", "content": "after"}, {"type": "compaction", "encrypted_content": "gAAAA…"}]
    )
    marker = parse(page(viewer_client, "sealed")).one(".marker.compaction")
    assert marker.text().endswith("Its summary is encrypted: only the model reads it.")
    assert not marker.all(".compaction-summary") and "gAAAA" not in marker.text()


@pytest.fixture
def compacted_twice(compacted):
    item_log.compact(
        "compacted",
        [{"type": "compaction", "summary": "Second summary."}, {"role": "user", "content": "the newest question"}],
    )
    return compacted


def test_one_archived_epoch_is_folded_in_and_an_earlier_one_loads_on_demand(viewer_client, compacted_twice):
    timeline = parse(page(viewer_client, compacted_twice)).one("#timeline")
    archive = timeline.one("details.archived-history")
    assert messages(archive) == ["the question after compaction"] and "the archived question" not in timeline.text()
    link = archive.link("Show earlier archived history")
    assert link["href"] == link["hx-get"] == "/p/default/sessions/compacted/?epoch=0"
    assert (link["hx-target"], link["hx-swap"]) == ("closest .timeline-control", "outerHTML")
    # Each compaction's own summary at its own marker: the archived epoch's marker is found in the archive.
    assert (
        archive.text(".compaction-summary") == "The agent's summary of it The user asked about refunds; all answered."
    )
    outer = [marker for marker in timeline.all(".marker.compaction") if marker not in archive.all(".marker")]
    assert [marker.text(".compaction-summary") for marker in outer] == ["The agent's summary of it Second summary."]


def test_the_earliest_archive_loads_in_place_its_entries_archived(viewer_client, compacted_twice):
    older = parse(viewer_client.get("/p/default/sessions/compacted/", {"epoch": 0}, headers=HTMX))
    assert not older.all("html, #session-header")
    assert messages(older) == ["the archived question"] and older.text(".marker.start") == "Start of the session"
    assert [entry.text(".archived-label") for entry in older.all("article.entry")] == ["Archived"]


def test_an_archived_epoch_read_as_a_page_of_its_own_is_archived_throughout(viewer_client, compacted):
    whole = parse(page(viewer_client, compacted, epoch=0))
    assert whole.text(".notice.info").startswith("You are reading archived history.")
    assert all("archived" in entry.classes for entry in whole.all("article.entry"))
    assert not whole.all("details.archived-history")


def test_a_compaction_that_kept_no_message_leaves_the_list_showing_the_last_one(viewer_client, compacted):
    item_log.compact("compacted", [{"type": "compaction", "summary": "Nothing kept."}])
    preview = parse(viewer_client.get(reverse("dashboard:sessions", args=["default"]))).text("td.preview")
    assert preview == "the question after compaction"

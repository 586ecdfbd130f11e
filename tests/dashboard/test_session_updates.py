import pytest
from django.urls import reverse

from historyhub.approvals import deciding
from historyhub.dashboard.timeline_cards import CHUNK_SIZE
from historyhub.history import client_actions, item_log, sessions
from historyhub.history.models import TimelineEntry
from tests.support.actors import HTMX, as_approver
from tests.support.html import parse

APPENDED = "[hx-swap-oob='beforeend:#timeline']"


def poll_url(page):
    """Where the hidden poller asks for what changed since the page, or the last answer, was drawn."""
    poll = page.one("#timeline-poll")
    assert poll.get("hidden") == ""
    return poll["hx-get"]


def open_page(client, session_id):
    return poll_url(parse(client.get(reverse("dashboard:session", args=["default", session_id]))))


@pytest.fixture
def live(db):
    sessions.ensure(agent="a", session_id="live")
    item_log.append(
        "live",
        [
            {"role": "user", "content": "first question"},
            {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{}"},
        ],
    )
    return "live"


def test_the_timeline_polls_with_a_cursor(viewer_client, live):
    url = open_page(viewer_client, live)
    session = sessions.get(live)
    assert url == f"/p/default/sessions/live/updates/?since={session.version}&epoch=0&seq=2&pk=" + str(
        TimelineEntry.objects.filter(session_id=live).order_by("-pk").first().pk
    )


def test_a_poll_that_finds_nothing_new_gets_204_and_no_body(viewer_client, live, django_assert_max_num_queries):
    url = open_page(viewer_client, live)
    with django_assert_max_num_queries(4):
        response = viewer_client.get(url, headers=HTMX)
    assert response.status_code == 204 and response.content == b""


def test_new_items_are_appended_and_changed_ones_replaced(viewer_client, live):
    url = open_page(viewer_client, live)
    item_log.append(
        live,
        [
            {"type": "function_call_output", "call_id": "c1", "output": "three results"},
            {"role": "assistant", "content": "the answer"},
        ],
    )
    page = parse(viewer_client.get(url, headers=HTMX))
    appended = page.one(APPENDED)
    replaced = page.one("article.entry-action[hx-swap-oob=true]")
    assert [entry.text(".bubble .markdown") for entry in appended.all("article.entry")] == ["the answer"]
    assert page.children.index(appended) < page.children.index(replaced)
    assert "three results" in replaced.text() and "state-completed" in replaced.one("summary .badge").classes
    assert "first question" not in page.text()
    # The answer brings the header, and a fresh cursor that finds nothing new next time.
    assert page.one("#session-header")["hx-swap-oob"] == "true"
    next_url = poll_url(page)
    assert viewer_client.get(next_url, headers=HTMX).status_code == 204


def test_a_new_waiting_client_action_shows_up_with_its_buttons(approver_client, live):
    url = open_page(approver_client, live)
    client_actions.open_action(live, call_id="ok1", name="send_email", arguments={"to": "a@example.com"})
    page = parse(approver_client.get(url, headers=HTMX))
    [card] = page.one(APPENDED).all("article.entry")
    assert card.text("summary .name") == "send_email" and card.button("Approve")
    assert page.text("#session-header .badge.waiting-count") == "1 waiting for a person"


def test_a_card_resolved_elsewhere_is_redrawn_without_its_buttons(approver_client, refund):
    url = open_page(approver_client, "refund-1")
    deciding.decide("refund-1", "call_refund", decision="reject", decider=as_approver("someone-else"))
    page = parse(approver_client.get(url, headers=HTMX))
    card = page.one("article.entry[hx-swap-oob=true]")
    assert card.one("dl.resolution").terms()["By"] == "someone-else" and not page.buttons("Approve")


def test_an_empty_timeline_drops_its_placeholder_when_the_first_item_arrives(viewer_client, db):
    sessions.ensure(agent="a", session_id="empty")
    url = open_page(viewer_client, "empty")
    item_log.append("empty", [{"role": "user", "content": "hello"}])
    page = parse(viewer_client.get(url, headers=HTMX))
    placeholder = page.one("#timeline-empty")
    assert placeholder["hx-swap-oob"] == "delete" and placeholder.text() == ""
    assert page.one(APPENDED).text(".bubble .markdown") == "hello"


@pytest.mark.parametrize(
    "change",
    [
        lambda: item_log.pop("live"),
        lambda: item_log.replace("live", [{"role": "user", "content": "a different story"}]),
        lambda: item_log.compact("live", [{"type": "compaction"}, {"role": "user", "content": "after compaction"}]),
        lambda: (item_log.pop("live"), item_log.append("live", [{"role": "user", "content": "in its place"}])),
        lambda: item_log.append("live", [{"role": "user", "content": f"burst {n}"} for n in range(CHUNK_SIZE + 1)]),
    ],
)
def test_removed_or_remade_entries_redraw_the_newest_chunk(viewer_client, live, change):
    url = open_page(viewer_client, live)
    change()
    page = parse(viewer_client.get(url, headers=HTMX))
    timeline = page.one("section#timeline")
    assert (timeline["hx-swap-oob"], timeline["aria-label"]) == ("true", "Timeline")
    assert not page.all(APPENDED)
    assert viewer_client.get(poll_url(page), headers=HTMX).status_code == 204


@pytest.mark.parametrize("query", ["", "?since=x&epoch=0&seq=0&pk=0", "?since=1&epoch=0&seq=-1&pk=0"])
def test_a_poll_without_a_whole_cursor_is_a_bad_request(viewer_client, live, query):
    assert viewer_client.get(f"/p/default/sessions/live/updates/{query}").status_code == 400


def test_polling_a_deleted_session_is_not_found(viewer_client, live):
    url = open_page(viewer_client, live)
    sessions.delete(live, actor="tests")
    assert viewer_client.get(url, headers=HTMX).status_code == 404

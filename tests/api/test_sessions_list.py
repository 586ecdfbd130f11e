import pytest

from historyhub.lib.validation import PAGINATION_MESSAGE
from tests.support.items import user
from tests.support.readers import assert_error


def create(api, session_id, agent="support", **fields):
    response = api.post("sessions", {"sessionId": session_id, "agent": agent, **fields})
    assert response.status_code == 201


def ids(response):
    assert response.status_code == 200, response.content
    return [session["sessionId"] for session in response.json()["items"]]


def test_it_lists_sessions_most_recently_updated_first(api):
    for session_id in ("a", "b", "c"):
        create(api, session_id)
    api.post("sessions/a/items", {"items": [user("hello")]})

    assert ids(api.get("sessions")) == ["a", "c", "b"]


def test_it_pages_through_the_sessions(api):
    for session_id in ("a", "b", "c"):
        create(api, session_id)

    first = api.get("sessions", page=1, pageSize=2).json()
    second = api.get("sessions", page=2, pageSize=2).json()

    assert [first[field] for field in ("page", "pageSize", "total", "hasMore")] == [1, 2, 3, True]
    assert [second[field] for field in ("page", "pageSize", "total", "hasMore")] == [2, 2, 3, False]
    assert len(first["items"]) == 2 and len(second["items"]) == 1
    assert {s["sessionId"] for s in first["items"] + second["items"]} == {"a", "b", "c"}


def test_the_page_size_defaults_to_50(api):
    create(api, "a")

    assert api.get("sessions").json()["pageSize"] == 50


def test_it_filters_by_agent_status_and_run_status(api):
    create(api, "a", agent="support")
    create(api, "b", agent="billing")
    create(api, "c", agent="billing")
    api.patch("sessions/b", {"status": "completed", "runStatus": "failed"})

    assert ids(api.get("sessions", agent="billing")) == ["b", "c"]
    assert ids(api.get("sessions", status="completed")) == ["b"]
    assert ids(api.get("sessions", runStatus="failed")) == ["b"]
    assert ids(api.get("sessions", agent="support", status="completed")) == []


@pytest.mark.parametrize("q", ["refund", "REFUND-7", "Gold", "parcel"])
def test_q_matches_id_name_agent_metadata_values_and_message_text(api, q):
    create(api, "refund-7", agent="refunds")
    create(api, "other-1", agent="support", name="Gold customer")
    create(api, "other-2", agent="support", metadata={"carrier": "parcel-express"})
    create(api, "other-3", agent="support")
    api.post("sessions/other-3/items", {"items": [user("Where is my parcel?")]})

    found = ids(api.get("sessions", q=q))

    expected = {
        "refund": ["refund-7"],
        "REFUND-7": ["refund-7"],
        "Gold": ["other-1"],
        "parcel": ["other-3", "other-2"],
    }[q]
    assert found == expected


def test_a_search_pages_through_what_it_finds_with_the_exact_total(api):
    for number in range(7):
        create(api, f"s{number}", name="Otter" if number % 2 else "Heron")
        api.post(f"sessions/s{number}/items", {"items": [user("an otter swam by" if number % 3 == 0 else "rain")]})
    found = ["s6", "s5", "s3", "s1", "s0"]

    pages = [api.get("sessions", q="otter", page=page, pageSize=2).json() for page in (1, 2, 3, 4)]

    assert [[s["sessionId"] for s in page["items"]] for page in pages] == [found[0:2], found[2:4], found[4:], []]
    assert [page["total"] for page in pages] == [5, 5, 5, 5]
    assert [page["hasMore"] for page in pages] == [True, True, False, False]


@pytest.mark.parametrize(
    "params",
    [
        {"page": 0},
        {"page": -1},
        {"page": "x"},
        {"pageSize": 0},
        {"pageSize": 101},
        {"pageSize": "1.5"},
    ],
)
def test_it_rejects_invalid_pagination_with_the_fixed_message(api, params):
    assert_error(api.get("sessions", **params), 400, "invalid_input", PAGINATION_MESSAGE)


def test_it_rejects_an_unknown_status_filter(api):
    message = assert_error(api.get("sessions", runStatus="sleeping"), 400, "invalid_input")
    assert message.startswith("runStatus: ")


def test_listed_snapshots_carry_their_pending_client_actions(api):
    create(api, "a")
    api.post("sessions/a/client-actions", {"callId": "c1", "name": "send_mail", "arguments": {"to": "x"}})

    [snapshot] = api.get("sessions").json()["items"]

    assert snapshot["pendingClientActions"] == [{"callId": "c1", "name": "send_mail", "arguments": {"to": "x"}}]
    assert snapshot["runStatus"] == "waiting_for_client_action"

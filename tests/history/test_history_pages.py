import pytest

from historyhub.history import client_actions, item_log, sessions
from historyhub.lib.errors import InvalidInput, SessionNotFound
from tests.support.items import user
from tests.support.readers import wire_history

PAGINATION_MESSAGE = "Pagination requires page >= 1 and pageSize between 1 and 100."


def texts(page):
    return [item["content"][0]["text"] for item in page["items"]]


@pytest.fixture
def seven_messages(session_id):
    item_log.append(session_id, [user(str(n)) for n in range(1, 8)])
    return session_id


def test_page_one_is_the_newest_page_in_chronological_order(seven_messages):
    page = wire_history(seven_messages, page=1, page_size=3)

    assert texts(page) == ["5", "6", "7"]
    assert [item["id"] for item in page["items"]] == ["message:5", "message:6", "message:7"]
    assert (page["page"], page["pageSize"], page["total"], page["hasMore"]) == (1, 3, 7, True)


def test_older_pages_follow(seven_messages):
    assert texts(wire_history(seven_messages, page=2, page_size=3)) == ["2", "3", "4"]

    last = wire_history(seven_messages, page=3, page_size=3)
    assert texts(last) == ["1"]
    assert last["hasMore"] is False


def test_a_page_that_ends_exactly_at_the_oldest_item_has_no_more(seven_messages):
    page = wire_history(seven_messages, page=1, page_size=7)

    assert texts(page) == ["1", "2", "3", "4", "5", "6", "7"]
    assert page["hasMore"] is False


def test_a_page_past_the_end_is_empty_without_more(seven_messages):
    page = wire_history(seven_messages, page=4, page_size=3)

    assert page["items"] == []
    assert page["hasMore"] is False
    assert page["total"] == 7


def test_a_far_page_past_the_end_is_empty_without_more(seven_messages):
    page = wire_history(seven_messages, page=5000, page_size=100)

    assert page["items"] == []
    assert page["hasMore"] is False


def test_an_empty_session_has_an_empty_first_page(session_id):
    page = wire_history(session_id)

    assert page["items"] == []
    assert (page["page"], page["pageSize"], page["total"], page["hasMore"]) == (1, 50, 0, False)


def test_the_defaults_are_page_one_of_fifty(session_id):
    item_log.append(session_id, [user(str(n)) for n in range(1, 56)])

    page = wire_history(session_id)

    assert (page["page"], page["pageSize"], page["hasMore"]) == (1, 50, True)
    assert texts(page)[0] == "6"
    assert texts(page)[-1] == "55"


def test_page_values_may_come_as_query_strings(seven_messages):
    page = wire_history(seven_messages, page="2", page_size="3")

    assert (page["page"], page["pageSize"]) == (2, 3)
    assert texts(page) == ["2", "3", "4"]


@pytest.mark.parametrize(
    "page, page_size",
    [
        (0, 10),
        (-1, 10),
        (1, 0),
        (1, 101),
        (1, -5),
        ("abc", 10),
        (1, "ten"),
        (1.5, 10),
        (True, 10),
        (1, "1e2"),
    ],
)
def test_it_rejects_pagination_out_of_range_with_the_fixed_message(seven_messages, page, page_size):
    with pytest.raises(InvalidInput) as error:
        wire_history(seven_messages, page=page, page_size=page_size)

    assert error.value.code == "invalid_input"
    assert error.value.message == PAGINATION_MESSAGE


def test_the_page_size_bounds_are_inclusive(seven_messages):
    assert len(wire_history(seven_messages, page=1, page_size=1)["items"]) == 1
    assert len(wire_history(seven_messages, page=1, page_size=100)["items"]) == 7


def test_it_carries_the_session_snapshot(db):
    sessions.ensure(agent="supportAgent", session_id="ses_1", name="Order 42", metadata={"tier": "gold"})
    client_actions.open_action(
        "ses_1", call_id="call_123", name="request_human_approval", arguments={"amount": 750, "currency": "USD"}
    )

    page = wire_history("ses_1")

    assert page["sessionId"] == "ses_1"
    assert page["agent"] == "supportAgent"
    assert page["name"] == "Order 42"
    assert page["status"] == "active"
    assert page["metadata"] == {"tier": "gold"}
    assert page["runStatus"] == "waiting_for_client_action"
    assert page["pendingClientActions"] == [
        {"callId": "call_123", "name": "request_human_approval", "arguments": {"amount": 750, "currency": "USD"}}
    ]
    assert page["createdAt"].endswith("Z")


def test_total_counts_history_items_not_log_items(session_id):
    item_log.append(session_id, [user("one"), {"type": "reasoning", "summary": []}, {"role": "system", "content": "x"}])

    assert wire_history(session_id)["total"] == 1
    assert sessions.get(session_id).item_count == 3


def test_an_unknown_session_is_not_found(db):
    with pytest.raises(SessionNotFound) as error:
        wire_history("ses_unknown")

    assert error.value.status == 404


def test_pages_stay_dense_after_a_pop_in_the_middle_of_the_timeline(session_id):
    item_log.append(session_id, [user("1"), user("2")])
    client_actions.open_action(session_id, call_id="call_9", name="confirm", arguments={})
    item_log.pop(session_id)

    page = wire_history(session_id, page=1, page_size=1)

    assert [item["id"] for item in page["items"]] == ["client-action:call_9"]
    assert page["total"] == 2
    assert [item["id"] for item in wire_history(session_id, page=2, page_size=1)["items"]] == ["message:1"]

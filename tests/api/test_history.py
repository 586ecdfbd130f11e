import pytest

from historyhub.lib.validation import PAGINATION_MESSAGE
from tests.support.items import assistant, function_call, function_output, user
from tests.support.readers import assert_error


@pytest.fixture
def five_messages(api, session_id):
    items = [user("one"), assistant("two"), user("three"), assistant("four"), user("five")]
    api.post(f"sessions/{session_id}/items", {"items": items})
    return session_id


def texts(page):
    return [item["content"][0]["text"] for item in page["items"]]


def test_page_one_is_the_newest_page_in_chronological_order(api, five_messages):
    page = api.get(f"sessions/{five_messages}/history", page=1, pageSize=2).json()

    assert texts(page) == ["four", "five"]
    assert (page["page"], page["pageSize"], page["total"], page["hasMore"]) == (1, 2, 5, True)


def test_the_oldest_page_has_no_more(api, five_messages):
    page = api.get(f"sessions/{five_messages}/history", page=3, pageSize=2).json()

    assert texts(page) == ["one"]
    assert page["hasMore"] is False


def test_a_page_past_the_end_is_empty(api, five_messages):
    page = api.get(f"sessions/{five_messages}/history", page=5000, pageSize=25).json()

    assert page["items"] == []
    assert page["hasMore"] is False
    assert page["total"] == 5


def test_it_carries_the_session_snapshot(api, five_messages):
    page = api.get(f"sessions/{five_messages}/history").json()

    assert page["sessionId"] == five_messages
    assert page["agent"] == "support"
    assert page["itemCount"] == 5
    assert page["pageSize"] == 50


def test_history_items_are_normalised_messages_and_actions(api, session_id):
    items = [
        user("weather?"),
        function_call("call-1", "get_weather", {"city": "Oslo"}),
        function_output("call-1", "rain"),
        {"type": "reasoning", "summary": []},
    ]
    api.post(f"sessions/{session_id}/items", {"items": items})

    message, action = api.get(f"sessions/{session_id}/history").json()["items"]

    assert message["id"] == "message:1"
    assert message["type"] == "message"
    assert message["content"] == [{"type": "text", "text": "weather?"}]
    assert message["createdAt"].endswith("Z")
    assert action["id"] == "action:call-1"
    assert action["status"] == "completed"
    assert action["arguments"] == {"city": "Oslo"}


@pytest.mark.parametrize("params", [{"page": 0}, {"pageSize": 101}, {"page": "two"}])
def test_it_rejects_invalid_pagination_with_the_fixed_message(api, session_id, params):
    response = api.get(f"sessions/{session_id}/history", **params)

    assert_error(response, 400, "invalid_input", PAGINATION_MESSAGE)


def test_it_answers_404_for_an_unknown_session(api):
    assert_error(api.get("sessions/nobody/history"), 404, "session_not_found")

import pytest

from historyhub.history import client_actions, item_log, sessions
from historyhub.lib.errors import InvalidInput
from tests.support.items import assistant, function_call, user
from tests.support.readers import items_in_log, snapshot, timeline, timeline_ids, timeline_item


def test_the_logical_history_becomes_exactly_the_items_given(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), assistant("two", id="msg_2"), user("three")])

    item_count = item_log.replace(session_id, [user("one", id="msg_1"), assistant("two, shorter")])

    assert item_count == 2
    assert items_in_log(session_id) == [user("one", id="msg_1"), assistant("two, shorter")]
    assert snapshot(session_id)["itemCount"] == 2


def test_replacing_with_nothing_empties_the_history(session_id):
    item_log.append(session_id, [user("one"), assistant("two")])

    assert item_log.replace(session_id, []) == 0

    assert items_in_log(session_id) == []
    assert timeline(session_id) == []


def test_every_item_of_the_replacement_is_kept_whatever_its_id(session_id):
    item_log.append(session_id, [user("old", id="msg_1")])

    item_log.replace(session_id, [user("new", id="msg_1"), user("newer", id="msg_1")])

    assert items_in_log(session_id) == [user("new", id="msg_1"), user("newer", id="msg_1")]


def test_the_timeline_shows_only_the_replacement_with_new_positions(session_id):
    item_log.append(session_id, [user("one"), function_call("call_1")])

    item_log.replace(session_id, [user("again"), assistant("reply")])

    items = timeline(session_id)
    assert [item["id"] for item in items] == ["message:3", "message:4"]
    assert [item["content"][0]["text"] for item in items] == ["again", "reply"]


def test_it_keeps_client_actions_opened_through_the_api_and_subagents(session_id):
    item_log.append(session_id, [user("one")])
    client_actions.open_action(session_id, call_id="call_9", name="confirm", arguments={})
    sessions.ensure(
        agent="researchAgent", session_id="ses_child", parent_session_id=session_id, parent_call_id="call_sub"
    )

    item_log.replace(session_id, [user("two")])

    assert timeline_ids(session_id) == ["client-action:call_9", "subagent:call_sub", "message:4"]
    assert snapshot(session_id)["pendingClientActions"][0]["callId"] == "call_9"


def test_it_drops_client_actions_the_replaced_items_opened(session_id):
    item_log.append(
        session_id,
        [
            {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_file", "arguments": "{}"},
        ],
    )

    item_log.replace(session_id, [user("never mind")])

    state = snapshot(session_id)
    assert state["pendingClientActions"] == []
    assert state["runStatus"] == "running"
    assert list(client_actions.listing("default", session_id=session_id)) == []


def test_the_replacement_is_projected(session_id):
    item_log.append(session_id, [user("one")])

    item_log.replace(
        session_id, [function_call("call_1"), {"type": "function_call_output", "call_id": "call_1", "output": "done"}]
    )

    assert timeline_item(session_id, "action:call_1")["status"] == "completed"


def test_usage_is_counted_again_from_the_replacement(session_id):
    item_log.append(session_id, [{"type": "skill", "id": "s1", "usage": {"inputTokens": 100}}])

    item_log.replace(session_id, [{"type": "skill", "id": "s2", "usage": {"inputTokens": 7, "outputTokens": 1}}])

    assert snapshot(session_id)["usage"] == {"inputTokens": 7, "outputTokens": 1}


def test_an_invalid_replacement_changes_nothing(session_id):
    item_log.append(session_id, [user("one"), assistant("two")])
    before_items, before_timeline = items_in_log(session_id), timeline(session_id)

    with pytest.raises(InvalidInput) as error:
        item_log.replace(session_id, [user("new"), 42])

    assert error.value.message == "item at index 1 is not an object"
    assert items_in_log(session_id) == before_items
    assert timeline(session_id) == before_timeline


def test_replacing_a_missing_session_creates_it(db):
    item_log.replace("ses_new", [user("hello")], agent="researchAgent")

    assert sessions.get("ses_new").agent == "researchAgent"
    assert items_in_log("ses_new") == [user("hello")]

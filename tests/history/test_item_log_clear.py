from historyhub.history import client_actions, item_log, sessions, transactions
from tests.support.items import function_call, user
from tests.support.readers import items_in_log, snapshot, timeline, timeline_ids


def fill(session_id):
    item_log.append(
        session_id,
        [
            user("hello", id="msg_1"),
            function_call("call_1"),
            {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_file", "arguments": "{}"},
            {"type": "skill", "id": "skill_1", "usage": {"inputTokens": 12}},
        ],
    )
    client_actions.open_action(session_id, call_id="call_9", name="confirm", arguments={"amount": 5})
    transactions.apply(session_id, "op_1", {"type": "append_items", "items": [user("from a transaction")]})


def test_it_removes_every_item_and_history_item(session_id):
    fill(session_id)

    item_log.clear(session_id)

    assert items_in_log(session_id) == []
    assert timeline(session_id) == []
    state = snapshot(session_id)
    assert state["itemCount"] == 0
    assert state["usage"] is None


def test_it_removes_client_actions_of_every_origin(session_id):
    fill(session_id)

    item_log.clear(session_id)

    assert list(client_actions.listing("default", session_id=session_id)) == []
    assert snapshot(session_id)["pendingClientActions"] == []


def test_it_forgets_recorded_operations(session_id):
    fill(session_id)

    item_log.clear(session_id)

    applied = transactions.apply(session_id, "op_1", {"type": "append_items", "items": [user("something else")]})
    assert applied is True
    assert items_in_log(session_id) == [user("something else")]


def test_it_keeps_the_session_id_agent_name_and_metadata(db):
    sessions.ensure(agent="supportAgent", session_id="ses_kept", name="Order 42", metadata={"tier": "gold", "n": 3})
    fill("ses_kept")

    item_log.clear("ses_kept")

    state = snapshot("ses_kept")
    assert state["sessionId"] == "ses_kept"
    assert state["agent"] == "supportAgent"
    assert state["name"] == "Order 42"
    assert state["metadata"] == {"tier": "gold", "n": 3}


def test_the_run_status_becomes_null(session_id):
    fill(session_id)
    assert snapshot(session_id)["runStatus"] == "waiting_for_client_action"

    item_log.clear(session_id)

    assert snapshot(session_id)["runStatus"] is None


def test_a_cleared_session_takes_new_items_with_positions_it_never_used(session_id):
    item_log.append(session_id, [user("one"), user("two")])

    item_log.clear(session_id)
    item_log.append(session_id, [user("three")])

    assert timeline_ids(session_id) == ["message:3"]


def test_ids_of_a_cleared_session_can_be_appended_again(session_id):
    fill(session_id)
    item_log.clear(session_id)

    inserted, item_count = item_log.append(session_id, [user("hello", id="msg_1")])

    assert inserted == [True]
    assert item_count == 1


def test_clearing_an_unknown_session_does_nothing(db):
    item_log.clear("ses_unknown")

    assert not sessions.search("default", q="ses_unknown").exists()


def test_clearing_leaves_other_sessions_alone(session_id):
    sessions.ensure(agent="supportAgent", session_id="ses_other")
    item_log.append("ses_other", [user("still here")])
    fill(session_id)

    item_log.clear(session_id)

    assert items_in_log("ses_other") == [user("still here")]
    assert timeline_ids("ses_other") == ["message:1"]

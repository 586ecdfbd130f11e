from historyhub.approvals import deciding
from historyhub.history import client_actions, item_log, sessions
from tests.support.actors import as_approver
from tests.support.items import assistant, function_call, function_output, user
from tests.support.readers import items_in_log, snapshot, timeline, timeline_ids, timeline_item

APPROVAL_REQUEST = {
    "type": "mcp_approval_request",
    "id": "mcpr_1",
    "name": "delete_file",
    "arguments": '{"path": "/tmp/report.pdf"}',
    "server_label": "files",
}


def test_it_removes_and_returns_the_newest_item(session_id):
    item_log.append(session_id, [user("one", id="msg_1"), user("two", id="msg_2")])

    popped = item_log.pop(session_id)

    assert popped == user("two", id="msg_2")
    assert items_in_log(session_id) == [user("one", id="msg_1")]
    assert snapshot(session_id)["itemCount"] == 1


def test_popping_an_empty_log_returns_nothing(session_id):
    assert item_log.pop(session_id) is None
    assert snapshot(session_id)["itemCount"] == 0


def test_popping_an_unknown_session_returns_nothing_and_creates_nothing(db):
    assert item_log.pop("ses_unknown") is None
    assert not sessions.search("default", q="ses_unknown").exists()


def test_a_popped_id_can_be_appended_again(session_id):
    item_log.append(session_id, [user("one", id="msg_1")])
    item_log.pop(session_id)

    inserted, _ = item_log.append(session_id, [user("one again", id="msg_1")])

    assert inserted == [True]
    assert items_in_log(session_id) == [user("one again", id="msg_1")]


def test_positions_are_not_reused_after_a_pop(session_id):
    item_log.append(session_id, [user("one"), user("two")])
    item_log.pop(session_id)

    item_log.append(session_id, [user("three")])

    assert timeline_ids(session_id) == ["message:1", "message:3"]


def test_popping_a_message_removes_its_history_item(session_id):
    item_log.append(session_id, [user("question"), assistant("answer")])

    item_log.pop(session_id)

    assert timeline_ids(session_id) == ["message:1"]
    assert snapshot(session_id)["itemCount"] == 1


def test_popping_an_item_that_projected_nothing_leaves_the_timeline_alone(session_id):
    item_log.append(session_id, [user("question"), {"type": "reasoning", "summary": []}])
    before = timeline(session_id)

    item_log.pop(session_id)

    assert timeline(session_id) == before


def test_popping_an_output_puts_its_action_back_to_running(session_id):
    item_log.append(session_id, [function_call("call_1")])
    item_log.append(session_id, [function_output("call_1")])
    assert timeline_item(session_id, "action:call_1")["status"] == "completed"

    item_log.pop(session_id)

    action = timeline_item(session_id, "action:call_1")
    assert action["status"] == "running"
    assert "durationMs" not in action
    assert "output" not in action


def test_popping_an_output_appended_with_its_call_puts_the_action_back_to_running(session_id):
    item_log.append(session_id, [function_call("call_1"), function_output("call_1")])

    item_log.pop(session_id)

    assert timeline_item(session_id, "action:call_1")["status"] == "running"


def test_popping_a_function_call_removes_its_action(session_id):
    item_log.append(session_id, [user("weather?"), function_call("call_1")])

    item_log.pop(session_id)

    assert timeline_ids(session_id) == ["message:1"]


def test_popping_a_chat_message_with_tool_calls_removes_every_action_it_added(session_id):
    item_log.append(
        session_id,
        [
            {"role": "user", "content": "weather in two cities?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
                    {"id": "call_b", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
                ],
            },
        ],
    )

    item_log.pop(session_id)

    assert timeline_ids(session_id) == ["message:1"]


def test_popping_an_approval_request_removes_its_client_action(session_id):
    item_log.append(session_id, [user("tidy up"), APPROVAL_REQUEST])
    assert snapshot(session_id)["runStatus"] == "waiting_for_client_action"

    item_log.pop(session_id)

    assert timeline_ids(session_id) == ["message:1"]
    assert snapshot(session_id)["pendingClientActions"] == []
    assert snapshot(session_id)["runStatus"] is None
    assert list(client_actions.listing("default", session_id=session_id)) == []


def test_popping_an_approval_request_restores_the_run_status_it_replaced(session_id):
    sessions.update(session_id, run_status="running")
    item_log.append(session_id, [APPROVAL_REQUEST])

    item_log.pop(session_id)

    assert snapshot(session_id)["runStatus"] == "running"


def test_popping_an_approval_response_puts_the_client_action_back_to_waiting(session_id):
    item_log.append(session_id, [APPROVAL_REQUEST])
    item_log.append(
        session_id,
        [
            {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
        ],
    )

    item_log.pop(session_id)

    entry = timeline_item(session_id, "client-action:mcpr_1")
    assert entry["status"] == "waiting"
    assert entry["summary"] == "delete file is waiting for the client."
    assert entry["arguments"] == {"path": "/tmp/report.pdf"}
    action = client_actions.get(session_id, "mcpr_1")
    assert action.status == "waiting"
    assert action.decision == ""
    assert action.resolved_at is None
    state = snapshot(session_id)
    assert state["runStatus"] == "waiting_for_client_action"
    assert state["pendingClientActions"] == [
        {"callId": "mcpr_1", "name": "delete_file", "arguments": {"path": "/tmp/report.pdf"}}
    ]


def test_a_client_action_put_back_to_waiting_can_be_decided_again(session_id):
    item_log.append(session_id, [APPROVAL_REQUEST])
    item_log.append(
        session_id,
        [
            {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": False},
        ],
    )
    item_log.pop(session_id)

    action, changed = deciding.decide(session_id, "mcpr_1", decision="approve", decider=as_approver())

    assert changed is True
    assert action.status == "approved"
    assert snapshot(session_id)["runStatus"] == "running"


def test_popping_a_session_completed_item_restores_the_run_status(session_id):
    sessions.update(session_id, run_status="running")
    item_log.append(session_id, [{"type": "session_completed", "id": "done_1", "durationMs": 900}])
    assert snapshot(session_id)["runStatus"] == "completed"

    item_log.pop(session_id)

    assert snapshot(session_id)["runStatus"] == "running"
    assert timeline_ids(session_id) == []


def test_popping_an_item_with_usage_subtracts_it(session_id):
    item_log.append(
        session_id,
        [
            {"type": "skill", "id": "skill_1", "usage": {"inputTokens": 10, "outputTokens": 4}},
            {"type": "skill", "id": "skill_2", "usage": {"inputTokens": 5, "reasoningTokens": 2}},
        ],
    )

    item_log.pop(session_id)

    assert snapshot(session_id)["usage"] == {"inputTokens": 10, "outputTokens": 4}


def test_popping_the_only_item_with_usage_leaves_no_usage(session_id):
    item_log.append(session_id, [{"type": "skill", "id": "skill_1", "usage": {"inputTokens": 10}}])

    item_log.pop(session_id)

    assert snapshot(session_id)["usage"] is None


def test_popping_keeps_the_history_items_that_follow_dense(session_id):
    item_log.append(session_id, [user("one"), function_call("call_1")])
    client_actions.open_action(session_id, call_id="call_9", name="confirm", arguments={})

    item_log.pop(session_id)

    assert timeline_ids(session_id) == ["message:1", "client-action:call_9"]
    assert client_actions.get(session_id, "call_9").status == "waiting"


def test_popping_everything_one_by_one_empties_the_timeline(session_id):
    item_log.append(
        session_id,
        [
            user("weather?"),
            function_call("call_1"),
            function_output("call_1"),
            assistant("Sunny."),
            APPROVAL_REQUEST,
            {"type": "skill", "id": "skill_1", "usage": {"inputTokens": 3}},
        ],
    )

    popped = [item_log.pop(session_id) for _ in range(6)]

    assert [item.get("type") for item in popped] == [
        "skill",
        "mcp_approval_request",
        "message",
        "function_call_output",
        "function_call",
        "message",
    ]
    state = snapshot(session_id)
    assert timeline(session_id) == []
    assert state["itemCount"] == 0
    assert state["usage"] is None
    assert state["runStatus"] is None
    assert item_log.pop(session_id) is None

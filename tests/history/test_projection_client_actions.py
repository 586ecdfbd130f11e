import pytest
import time_machine

from historyhub.approvals import deciding
from historyhub.history import client_actions, item_log
from tests.support.actors import as_approver
from tests.support.clock import ServerClock, parse_time
from tests.support.readers import snapshot, timeline, timeline_item

APPROVAL_ARGUMENTS = {"amount": 750, "currency": "USD"}


def open_approval(session_id, **fields):
    return client_actions.open_action(
        session_id, call_id="call_123", name="request_human_approval", arguments=APPROVAL_ARGUMENTS, **fields
    )


def test_a_client_action_opened_through_the_api_is_a_waiting_history_item(session_id):
    with ServerClock() as clock:
        open_approval(session_id)

    [item] = timeline(session_id)
    assert clock.saw(parse_time(item.pop("createdAt")))
    assert item == {
        "id": "client-action:call_123",
        "type": "client_action",
        "name": "request_human_approval",
        "callId": "call_123",
        "status": "waiting",
        "arguments": {"amount": 750, "currency": "USD"},
        "summary": "request human approval is waiting for the client.",
    }


def test_an_approved_client_action_is_completed_without_its_arguments(session_id):
    open_approval(session_id)

    deciding.decide(session_id, "call_123", decision="approve", decider=as_approver())

    item = timeline_item(session_id, "client-action:call_123")
    assert item["status"] == "completed"
    assert item["summary"] == "request human approval completed."
    assert "arguments" not in item


def test_a_rejected_client_action_failed(session_id):
    open_approval(session_id)

    deciding.decide(session_id, "call_123", decision="reject", comment="Too much.", decider=as_approver())

    item = timeline_item(session_id, "client-action:call_123")
    assert item["status"] == "failed"
    assert item["summary"] == "request human approval was rejected."
    assert "arguments" not in item


def test_a_supplied_result_completes_it(session_id):
    open_approval(session_id)

    client_actions.supply_result(session_id, "call_123", output={"approved": True}, resolved_by="key:app")

    item = timeline_item(session_id, "client-action:call_123")
    assert (item["status"], item["summary"]) == ("completed", "request human approval completed.")
    assert "arguments" not in item


def test_an_error_result_fails_it(session_id):
    open_approval(session_id)

    client_actions.supply_result(session_id, "call_123", output="printer on fire", is_error=True, resolved_by="app")

    item = timeline_item(session_id, "client-action:call_123")
    assert (item["status"], item["summary"]) == ("failed", "request human approval failed.")
    assert "arguments" not in item


def test_an_expired_client_action_failed(session_id):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        open_approval(session_id, expires_at="2026-12-01T12:05:00Z")

    with time_machine.travel("2026-12-01T12:06:00Z", tick=False):
        client_actions.sweep_expired()

    item = timeline_item(session_id, "client-action:call_123")
    assert (item["status"], item["summary"]) == ("failed", "request human approval expired.")
    assert "arguments" not in item


def test_an_mcp_approval_request_is_a_waiting_client_action(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "mcp_approval_request",
                "id": "mcpr_1",
                "name": "delete_file",
                "server_label": "files",
                "arguments": '{"path": "/tmp/report.pdf"}',
                "createdAt": "2026-09-28T12:00:09Z",
            }
        ],
    )

    assert timeline(session_id) == [
        {
            "id": "client-action:mcpr_1",
            "type": "client_action",
            "createdAt": "2026-09-28T12:00:09Z",
            "name": "delete_file",
            "callId": "mcpr_1",
            "status": "waiting",
            "arguments": {"path": "/tmp/report.pdf"},
            "summary": "delete file is waiting for the client.",
        }
    ]
    state = snapshot(session_id)
    assert state["runStatus"] == "waiting_for_client_action"
    assert state["pendingClientActions"] == [
        {"callId": "mcpr_1", "name": "delete_file", "arguments": {"path": "/tmp/report.pdf"}}
    ]
    action = client_actions.get(session_id, "mcpr_1")
    assert (action.status, action.description) == ("waiting", "files")


def test_an_approving_mcp_approval_response_settles_an_ungoverned_request_as_reported(session_id):
    item_log.append(
        session_id,
        [
            {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_file", "arguments": "{}"},
            {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
        ],
    )

    item = timeline_item(session_id, "client-action:mcpr_1")
    assert (item["status"], item["summary"]) == ("completed", "delete file completed.")
    assert "arguments" not in item
    action = client_actions.get(session_id, "mcpr_1")
    assert (action.status, action.resolved_by, action.reported) == ("approved", "agent (reported)", True)
    assert snapshot(session_id)["runStatus"] == "running"


def test_a_refusing_mcp_approval_response_rejects_it(session_id):
    item_log.append(
        session_id,
        [
            {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_file", "arguments": "{}"},
            {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": False, "reason": "No."},
        ],
    )

    item = timeline_item(session_id, "client-action:mcpr_1")
    assert (item["status"], item["summary"]) == ("failed", "delete file was rejected.")
    action = client_actions.get(session_id, "mcpr_1")
    assert (action.status, action.decision, action.comment) == ("rejected", "reject", "No.")


def test_an_mcp_approval_response_for_an_unknown_request_changes_nothing(session_id):
    item_log.append(session_id, [{"type": "mcp_approval_response", "approval_request_id": "mcpr_x", "approve": True}])

    assert timeline(session_id) == []
    assert snapshot(session_id)["runStatus"] is None


def test_an_orcha_waiting_client_action_item_is_a_waiting_client_action(session_id):
    item_log.append(
        session_id,
        [
            {
                "id": "ca_1",
                "type": "client_action",
                "createdAt": "2026-09-28T12:00:09Z",
                "name": "request_human_approval",
                "callId": "call_123",
                "status": "waiting",
                "arguments": APPROVAL_ARGUMENTS,
            }
        ],
    )

    assert timeline(session_id) == [
        {
            "id": "client-action:call_123",
            "type": "client_action",
            "createdAt": "2026-09-28T12:00:09Z",
            "name": "request_human_approval",
            "callId": "call_123",
            "status": "waiting",
            "arguments": {"amount": 750, "currency": "USD"},
            "summary": "request human approval is waiting for the client.",
        }
    ]
    assert snapshot(session_id)["pendingClientActions"] == [
        {"callId": "call_123", "name": "request_human_approval", "arguments": APPROVAL_ARGUMENTS}
    ]


def test_an_orcha_waiting_client_action_can_be_decided(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "client_action",
                "name": "request_human_approval",
                "callId": "call_123",
                "arguments": APPROVAL_ARGUMENTS,
            }
        ],
    )

    deciding.decide(session_id, "call_123", decision="approve", decider=as_approver())

    assert timeline_item(session_id, "client-action:call_123")["status"] == "completed"
    assert snapshot(session_id)["runStatus"] == "running"


def test_a_later_orcha_item_with_the_outcome_settles_the_ungoverned_action_it_opened_as_reported(session_id):
    waiting = {
        "type": "client_action",
        "name": "request_human_approval",
        "callId": "call_123",
        "arguments": APPROVAL_ARGUMENTS,
    }
    item_log.append(session_id, [waiting])

    item_log.append(session_id, [{**waiting, "status": "approved", "output": {"approved": True}}])

    action = client_actions.get(session_id, "call_123")
    assert (action.status, action.resolved_by, action.output) == ("approved", "agent (reported)", {"approved": True})
    assert action.reported is True
    assert not action.votes.exists()
    assert timeline(session_id)[0]["status"] == "completed"
    assert "arguments" not in timeline(session_id)[0]
    assert len(timeline(session_id)) == 1
    assert snapshot(session_id)["runStatus"] == "running"
    assert snapshot(session_id)["pendingClientActions"] == []


def test_popping_the_outcome_item_puts_the_action_back_to_waiting(session_id):
    waiting = {
        "type": "client_action",
        "name": "request_human_approval",
        "callId": "call_123",
        "arguments": APPROVAL_ARGUMENTS,
    }
    item_log.append(session_id, [waiting, {**waiting, "status": "rejected"}])

    item_log.pop(session_id)

    assert client_actions.get(session_id, "call_123").status == "waiting"
    assert timeline(session_id)[0]["status"] == "waiting"
    assert timeline(session_id)[0]["arguments"] == APPROVAL_ARGUMENTS
    assert snapshot(session_id)["runStatus"] == "waiting_for_client_action"


def test_an_orcha_client_action_item_that_already_completed_is_shown_completed(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "client_action",
                "name": "request_human_approval",
                "callId": "call_123",
                "status": "completed",
                "arguments": APPROVAL_ARGUMENTS,
                "createdAt": "2026-09-28T12:00:09Z",
            }
        ],
    )

    assert timeline(session_id) == [
        {
            "id": "client-action:call_123",
            "type": "client_action",
            "createdAt": "2026-09-28T12:00:09Z",
            "name": "request_human_approval",
            "callId": "call_123",
            "status": "completed",
            "summary": "request human approval completed.",
        }
    ]
    assert snapshot(session_id)["runStatus"] is None


def test_an_orcha_client_action_item_that_failed_is_shown_failed(session_id):
    item_log.append(
        session_id,
        [{"type": "client_action", "name": "request_human_approval", "callId": "call_123", "status": "failed"}],
    )

    item = timeline_item(session_id, "client-action:call_123")
    assert (item["status"], item["summary"]) == ("failed", "request human approval failed.")


def test_an_orcha_client_action_item_keeps_its_own_summary(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "client_action",
                "name": "request_human_approval",
                "callId": "call_123",
                "status": "failed",
                "summary": "request human approval was rejected.",
            }
        ],
    )

    assert timeline_item(session_id, "client-action:call_123")["summary"] == "request human approval was rejected."


def test_every_underscore_of_the_name_becomes_a_space_in_the_summary(session_id):
    client_actions.open_action(session_id, call_id="call_1", name="confirm__bank_transfer_", arguments={})

    assert timeline(session_id)[0]["summary"] == "confirm  bank transfer  is waiting for the client."


@pytest.mark.parametrize(
    "name, kept",
    [
        (5, "mcp_tool"),
        ("", "mcp_tool"),
        (None, "mcp_tool"),
        ("n" * 300, "n" * 200),
        # The item keeps its name verbatim; the action's has each control character replaced.
        ("delete\nfile", "delete\ufffdfile"),
        ("\r\n", "\ufffd\ufffd"),
    ],
)
def test_an_approval_request_with_an_odd_name_still_opens_a_client_action(session_id, name, kept):
    item_log.append(session_id, [{"type": "mcp_approval_request", "id": "mcpr_1", "name": name, "arguments": "{}"}])

    assert client_actions.get(session_id, "mcpr_1").name == kept
    assert timeline_item(session_id, "client-action:mcpr_1")["status"] == "waiting"

"""A tool call that needs a person's approval shows on one card: the call, its approval and its outcome."""

import time_machine

from historyhub.approvals import deciding
from historyhub.history import client_actions, item_log
from tests.support.actors import as_approver
from tests.support.items import function_call, function_output
from tests.support.readers import snapshot, timeline, timeline_item

ARGUMENTS = '{"amount": 750}'


def call_needing_approval(session_id, call_id="call_1"):
    """What an Agents SDK run with an approval-gated tool stores, then asks: the call, then the action."""
    item_log.append(session_id, [function_call(call_id, name="issue_refund", arguments=ARGUMENTS)])
    client_actions.open_action(
        session_id, call_id=call_id, name="issue_refund", arguments={"amount": 750}, description="Refund money."
    )


def test_the_call_waiting_for_approval_is_one_waiting_card(session_id):
    call_needing_approval(session_id)

    [card] = timeline(session_id)
    assert card["id"] == "action:call_1"
    assert (card["type"], card["status"]) == ("action", "waiting")
    assert card["summary"] == "issue refund is waiting for the client."
    assert card["arguments"] == {"amount": 750}
    assert card["approval"] == {"status": "waiting"}
    assert snapshot(session_id)["runStatus"] == "waiting_for_client_action"
    assert [action["callId"] for action in snapshot(session_id)["pendingClientActions"]] == ["call_1"]


def test_an_approved_call_runs_with_the_approved_arguments_and_completes_with_its_output(session_id):
    call_needing_approval(session_id)

    deciding.decide(
        session_id, "call_1", decision="approve", comment="ok", arguments={"amount": 500}, decider=as_approver()
    )
    running = timeline_item(session_id, "action:call_1")
    item_log.append(session_id, [function_output("call_1", "refunded 500")])

    [card] = timeline(session_id)
    assert running["status"] == "running"
    assert (card["status"], card["output"]) == ("completed", "refunded 500")
    assert card["arguments"] == {"amount": 750}
    approval = card["approval"]
    assert (approval["status"], approval["decision"], approval["comment"]) == ("approved", "approve", "ok")
    assert (approval["approvedArguments"], approval["resolvedBy"]) == ({"amount": 500}, "owner")
    assert snapshot(session_id)["runStatus"] == "running"


def test_a_rejected_call_is_one_failed_card_though_the_sdk_stores_an_output_for_it(session_id):
    call_needing_approval(session_id)

    deciding.decide(session_id, "call_1", decision="reject", comment="Too much.", decider=as_approver())
    item_log.append(session_id, [function_output("call_1", "Tool execution was not approved. Too much.")])

    [card] = timeline(session_id)
    assert (card["id"], card["status"], card["summary"]) == ("action:call_1", "failed", "issue refund was rejected.")
    assert (card["approval"]["status"], card["approval"]["comment"]) == ("rejected", "Too much.")
    assert card["output"] == "Tool execution was not approved. Too much."


def test_an_expired_approval_reads_failed_on_the_card(session_id):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        item_log.append(session_id, [function_call("call_1", name="issue_refund", arguments=ARGUMENTS)])
        client_actions.open_action(
            session_id, call_id="call_1", name="issue_refund", arguments={}, expires_at="2026-12-01T12:05:00Z"
        )

    with time_machine.travel("2026-12-01T12:05:00Z", tick=False):
        [card] = timeline(session_id)

    assert (card["status"], card["summary"], card["approval"]["status"]) == (
        "failed",
        "issue refund expired.",
        "expired",
    )


def test_an_approval_asked_before_the_call_was_stored_keeps_one_card(session_id):
    client_actions.open_action(session_id, call_id="call_1", name="issue_refund", arguments={"amount": 750})
    deciding.decide(session_id, "call_1", decision="approve", decider=as_approver())

    item_log.append(
        session_id,
        [function_call("call_1", name="issue_refund", arguments=ARGUMENTS), function_output("call_1", "refunded")],
    )

    [card] = timeline(session_id)
    assert (card["id"], card["type"]) == ("client-action:call_1", "client_action")
    assert (card["status"], card["output"]) == ("completed", "refunded")


def test_popping_the_gated_call_leaves_its_action_on_a_card_of_its_own(session_id):
    call_needing_approval(session_id)

    item_log.pop(session_id)

    [card] = timeline(session_id)
    assert (card["id"], card["type"], card["status"]) == ("client-action:call_1", "client_action", "waiting")
    deciding.decide(session_id, "call_1", decision="approve", decider=as_approver())
    assert timeline_item(session_id, "client-action:call_1")["status"] == "completed"


def test_popping_the_output_of_an_approved_call_puts_it_back_to_running(session_id):
    call_needing_approval(session_id)
    deciding.decide(session_id, "call_1", decision="approve", decider=as_approver())
    item_log.append(session_id, [function_output("call_1", "refunded")])

    item_log.pop(session_id)

    [card] = timeline(session_id)
    assert card["status"] == "running"
    assert "output" not in card
    assert card["approval"]["status"] == "approved"

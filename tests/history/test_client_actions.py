from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from historyhub.approvals import deciding
from historyhub.history import client_actions, digests, item_log, sessions
from historyhub.lib.errors import ActionResultConflict, InvalidInput, NotFound, SessionNotFound
from tests.support.actors import as_approver
from tests.support.clock import ServerClock, parse_time
from tests.support.readers import shown, snapshot, timeline_item

ARGUMENTS = {"amount": 750, "currency": "USD"}
OPENED_AT = "2026-12-01T12:00:00Z"
EXPIRES_AT = "2026-12-01T12:05:00Z"
AFTER_EXPIRY = "2026-12-01T12:05:01Z"


def open_approval(session_id, call_id="call_123", **fields):
    fields.setdefault("arguments", ARGUMENTS)
    return client_actions.open_action(session_id, call_id=call_id, name="request_human_approval", **fields)


def test_opening_creates_a_waiting_client_action(session_id):
    with ServerClock() as clock:
        action, created = open_approval(
            session_id,
            description="Refund above the limit.",
            expires_at="2099-01-01T00:00:00Z",
        )

    assert created is True
    answer = shown(action)
    assert clock.saw(parse_time(answer.pop("createdAt")))
    assert answer == {
        "sessionId": session_id,
        "callId": "call_123",
        "name": "request_human_approval",
        "arguments": ARGUMENTS,
        "argumentsDigest": digests.of(ARGUMENTS),
        "description": "Refund above the limit.",
        "status": "waiting",
        "expiresAt": "2099-01-01T00:00:00Z",
        "resolvedAt": None,
        "resolvedBy": None,
        "decision": None,
        "comment": None,
        "approvedArguments": None,
        "approvedArgumentsDigest": None,
        "response": None,
        "output": None,
        "isError": None,
        "allowedResponses": ["approve", "edit", "reject"],
        "responseSchema": None,
        "policy": None,
        "votes": [],
        "approvalsNeeded": 1,
        "escalatedAt": None,
        "executedAt": None,
        "reported": False,
        "imported": False,
    }


def test_opening_sets_the_run_status_and_pending_actions(session_id):
    open_approval(session_id)

    state = snapshot(session_id)
    assert state["runStatus"] == "waiting_for_client_action"
    assert state["pendingClientActions"] == [
        {"callId": "call_123", "name": "request_human_approval", "arguments": ARGUMENTS}
    ]


def test_opening_the_same_call_with_the_same_content_returns_the_existing_one(session_id):
    first, _ = open_approval(session_id, description="d", expires_at="2099-01-01T00:00:00Z")

    again, created = open_approval(
        session_id,
        description="d",
        expires_at="2099-01-01T01:00:00+01:00",
        arguments={"currency": "USD", "amount": 750.0},
    )

    assert created is False
    assert again.pk == first.pk
    assert len(snapshot(session_id)["pendingClientActions"]) == 1


@pytest.mark.parametrize(
    "different",
    [
        {"arguments": {"amount": 751, "currency": "USD"}},
        {"description": "another"},
        {"expires_at": "2099-01-01T00:00:00Z"},
    ],
)
def test_opening_the_same_call_with_different_content_is_a_conflict(session_id, different):
    open_approval(session_id)

    with pytest.raises(ActionResultConflict) as error:
        open_approval(session_id, **different)

    assert error.value.status == 409
    assert client_actions.get(session_id, "call_123").arguments == ARGUMENTS


def test_opening_the_same_call_under_another_name_is_a_conflict(session_id):
    open_approval(session_id)

    with pytest.raises(ActionResultConflict):
        client_actions.open_action(session_id, call_id="call_123", name="other", arguments=ARGUMENTS)


def test_opening_in_an_unknown_session_is_not_found(db):
    with pytest.raises(SessionNotFound):
        open_approval("ses_unknown")


@pytest.mark.parametrize(
    "fields",
    [
        {"arguments": ["not", "an", "object"]},
        {"arguments": None},
        {"description": 5},
        {"expires_at": "tomorrow"},
        {"expires_at": "2099-01-01T00:00:00"},
        {"call_id": ""},
        {"call_id": "c" * 201},
    ],
)
def test_opening_rejects_invalid_input(session_id, fields):
    with pytest.raises(InvalidInput):
        open_approval(session_id, **fields)

    assert snapshot(session_id)["runStatus"] is None


def test_approving_with_edited_arguments_keeps_both_versions(session_id):
    open_approval(session_id)

    with ServerClock() as clock:
        action, changed = deciding.decide(
            session_id,
            "call_123",
            decision="approve",
            comment="Lowered.",
            arguments={"amount": 500, "currency": "USD"},
            decider=as_approver(),
        )

    assert changed is True
    answer = shown(client_actions.get(session_id, "call_123"))
    assert clock.saw(parse_time(answer["resolvedAt"]))
    assert (answer["status"], answer["decision"], answer["comment"], answer["resolvedBy"]) == (
        "approved",
        "approve",
        "Lowered.",
        "owner",
    )
    assert answer["arguments"] == ARGUMENTS
    assert answer["approvedArguments"] == {"amount": 500, "currency": "USD"}


def test_approving_without_arguments_approves_the_original_ones(session_id):
    open_approval(session_id)

    action, _ = deciding.decide(session_id, "call_123", decision="approve", decider=as_approver())

    assert action.approved_arguments == ARGUMENTS


def test_rejecting_keeps_the_comment(session_id):
    open_approval(session_id)

    action, changed = deciding.decide(
        session_id, "call_123", decision="reject", comment="Too much.", decider=as_approver()
    )

    assert changed is True
    answer = shown(action)
    assert (answer["status"], answer["decision"], answer["comment"], answer["approvedArguments"]) == (
        "rejected",
        "reject",
        "Too much.",
        None,
    )


def test_supplying_a_result_completes_it(session_id):
    open_approval(session_id)

    action, changed = client_actions.supply_result(
        session_id, "call_123", output={"approved": True, "by": "Ana"}, resolved_by="key:mobile-app"
    )

    assert changed is True
    answer = shown(action)
    assert (answer["status"], answer["output"], answer["isError"], answer["resolvedBy"]) == (
        "completed",
        {"approved": True, "by": "Ana"},
        False,
        "key:mobile-app",
    )


def test_supplying_an_error_result_fails_it(session_id):
    open_approval(session_id)

    action, _ = client_actions.supply_result(
        session_id, "call_123", output="denied by policy", is_error=True, resolved_by="app"
    )

    assert (action.status, action.output, action.is_error) == ("failed", "denied by policy", True)


@pytest.mark.parametrize("output", [None, 0, "", [], {}])
def test_an_empty_looking_result_is_kept_as_given(session_id, output):
    open_approval(session_id)

    action, _ = client_actions.supply_result(session_id, "call_123", output=output, resolved_by="app")

    assert shown(client_actions.get(session_id, "call_123"))["output"] == output


def test_the_run_status_returns_to_running_when_the_last_waiting_action_resolves(session_id):
    open_approval(session_id, call_id="call_1")
    open_approval(session_id, call_id="call_2")

    deciding.decide(session_id, "call_1", decision="approve", decider=as_approver())
    assert snapshot(session_id)["runStatus"] == "waiting_for_client_action"
    assert [pending["callId"] for pending in snapshot(session_id)["pendingClientActions"]] == ["call_2"]

    client_actions.supply_result(session_id, "call_2", output="ok", resolved_by="app")
    assert snapshot(session_id)["runStatus"] == "running"
    assert snapshot(session_id)["pendingClientActions"] == []


def test_resolving_twice_the_same_way_changes_nothing(session_id):
    open_approval(session_id)
    first, _ = deciding.decide(session_id, "call_123", decision="reject", comment="No.", decider=as_approver())

    again, changed = deciding.decide(
        session_id, "call_123", decision="reject", comment="No.", decider=as_approver("someone else")
    )

    assert changed is False
    assert (again.resolved_at, again.resolved_by) == (first.resolved_at, "owner")


def test_supplying_the_same_result_twice_changes_nothing(session_id):
    open_approval(session_id)
    client_actions.supply_result(session_id, "call_123", output={"a": 1, "b": 2}, resolved_by="app")

    _, changed = client_actions.supply_result(session_id, "call_123", output={"b": 2, "a": 1}, resolved_by="app")

    assert changed is False


@pytest.mark.parametrize(
    "second",
    [
        {"decision": "reject"},
        {"decision": "approve", "comment": "different comment"},
        {"decision": "approve", "arguments": {"amount": 1}},
    ],
)
def test_deciding_differently_after_a_decision_is_a_conflict(session_id, second):
    open_approval(session_id)
    deciding.decide(session_id, "call_123", decision="approve", decider=as_approver())

    with pytest.raises(ActionResultConflict) as error:
        deciding.decide(session_id, "call_123", decider=as_approver(), **second)

    assert error.value.code == "action_result_conflict"
    assert client_actions.get(session_id, "call_123").status == "approved"


def test_a_different_result_after_a_result_is_a_conflict(session_id):
    open_approval(session_id)
    client_actions.supply_result(session_id, "call_123", output="yes", resolved_by="app")

    with pytest.raises(ActionResultConflict):
        client_actions.supply_result(session_id, "call_123", output="no", resolved_by="app")
    with pytest.raises(ActionResultConflict):
        client_actions.supply_result(session_id, "call_123", output="yes", is_error=True, resolved_by="app")

    assert client_actions.get(session_id, "call_123").output == "yes"


def test_a_decision_after_a_result_is_a_conflict(session_id):
    open_approval(session_id)
    client_actions.supply_result(session_id, "call_123", output="yes", resolved_by="app")

    with pytest.raises(ActionResultConflict):
        deciding.decide(session_id, "call_123", decision="approve", decider=as_approver())


def open_expiring(session_id):
    with time_machine.travel(OPENED_AT, tick=False):
        return open_approval(session_id, expires_at=EXPIRES_AT)


def test_a_waiting_action_past_its_expiry_reads_expired_everywhere_without_a_write(session_id):
    open_expiring(session_id)
    version = sessions.get(session_id).version

    with time_machine.travel(AFTER_EXPIRY, tick=False):
        answer = shown(client_actions.get(session_id, "call_123"))
        assert answer["status"] == "expired"
        assert snapshot(session_id)["runStatus"] == "running"
        assert snapshot(session_id)["pendingClientActions"] == []
        card = timeline_item(session_id, "client-action:call_123")
        assert (card["status"], card["summary"]) == ("failed", "request human approval expired.")
        assert "arguments" not in card
        assert client_actions.waiting_count("default") == 0

    assert sessions.get(session_id).version == version
    assert client_actions.get(session_id, "call_123").status == "waiting"


def test_before_its_expiry_an_action_reads_waiting(session_id):
    open_expiring(session_id)

    with time_machine.travel("2026-12-01T12:04:59.999Z", tick=False):
        assert shown(client_actions.get(session_id, "call_123"))["status"] == "waiting"
        assert snapshot(session_id)["runStatus"] == "waiting_for_client_action"


@pytest.mark.parametrize(
    "moment, reads",
    [("2026-12-01T12:04:59.999999Z", "waiting"), (EXPIRES_AT, "expired")],
    ids=["a microsecond before", "at expiresAt"],
)
def test_every_reader_sees_the_expiry_from_the_same_moment(session_id, moment, reads):
    """The action, the session, its card, the list filters, the inbox count, parked runs and the sweep all ask
    the one rule: up to expiresAt the action waits, from expiresAt on it is expired."""
    open_expiring(session_id)
    waits = reads == "waiting"

    with time_machine.travel(moment, tick=False):
        now = timezone.now()
        assert client_actions.get(session_id, "call_123").status_at(now) == reads
        listed = {
            status: [a.call_id for a in client_actions.listing("default", status)] for status in ("waiting", "expired")
        }
        assert listed == {"waiting": ["call_123"] if waits else [], "expired": [] if waits else ["call_123"]}
        assert client_actions.waiting_count("default") == (1 if waits else 0)
        assert snapshot(session_id)["runStatus"] == ("waiting_for_client_action" if waits else "running")
        assert [s.session_id for s in sessions.search("default", waiting=True)] == (["ses_support"] if waits else [])
        card = timeline_item(session_id, "client-action:call_123")
        assert card["status"] == ("waiting" if waits else "failed")
        assert client_actions.sweep_expired() == (0 if waits else 1)

    assert client_actions.get(session_id, "call_123").status == reads


def test_the_sweep_writes_the_expiry_down(session_id):
    open_expiring(session_id)

    with time_machine.travel(AFTER_EXPIRY, tick=False):
        assert client_actions.sweep_expired() == 1

    action = client_actions.get(session_id, "call_123")
    assert action.status == "expired"
    answer = shown(action)
    assert answer["expiresAt"] == answer["resolvedAt"] == "2026-12-01T12:05:00Z"
    stored = sessions.get(session_id)
    assert (stored.run_status, stored.waiting_count) == ("running", 0)
    assert timeline_item(session_id, "client-action:call_123")["summary"] == "request human approval expired."


def test_an_expiry_in_the_past_is_refused_when_opening(session_id):
    with pytest.raises(InvalidInput) as error:
        open_approval(session_id, expires_at="2020-01-01T00:00:00Z")

    assert error.value.message == "expiresAt must lie in the future."
    assert snapshot(session_id)["pendingClientActions"] == []


def test_an_expired_action_can_no_longer_be_resolved(session_id):
    open_expiring(session_id)

    with time_machine.travel(AFTER_EXPIRY, tick=False):
        with pytest.raises(ActionResultConflict):
            deciding.decide(session_id, "call_123", decision="approve", decider=as_approver())
        with pytest.raises(ActionResultConflict):
            deciding.decide(session_id, "call_123", decision="reject", decider=as_approver())
        with pytest.raises(ActionResultConflict):
            client_actions.supply_result(session_id, "call_123", output="late", resolved_by="app")

    assert client_actions.get(session_id, "call_123").status == "expired"


def test_an_action_that_has_not_reached_its_expiry_stays_waiting(session_id):
    open_approval(session_id, expires_at=(timezone.now() + timedelta(hours=1)).isoformat())

    client_actions.sweep_expired()

    assert client_actions.get(session_id, "call_123").status == "waiting"


def test_a_resolved_action_does_not_expire(session_id):
    open_approval(session_id, expires_at=(timezone.now() + timedelta(hours=1)).isoformat())
    deciding.decide(session_id, "call_123", decision="approve", decider=as_approver())

    client_actions.sweep_expired()

    assert client_actions.get(session_id, "call_123").status == "approved"


@pytest.mark.parametrize("decision", ["maybe", "", None, "APPROVE"])
def test_an_unknown_decision_is_rejected(session_id, decision):
    open_approval(session_id)

    with pytest.raises(InvalidInput):
        deciding.decide(session_id, "call_123", decision=decision, decider=as_approver())

    assert client_actions.get(session_id, "call_123").status == "waiting"


def test_edited_arguments_must_be_an_object(session_id):
    open_approval(session_id)

    with pytest.raises(InvalidInput):
        deciding.decide(session_id, "call_123", decision="approve", arguments=[1], decider=as_approver())


def test_is_error_must_be_a_boolean(session_id):
    open_approval(session_id)

    with pytest.raises(InvalidInput):
        client_actions.supply_result(session_id, "call_123", output="x", is_error="yes", resolved_by="app")

    assert client_actions.get(session_id, "call_123").status == "waiting"


def test_resolving_an_unknown_action_is_not_found(session_id):
    with pytest.raises(NotFound):
        deciding.decide(session_id, "call_404", decision="reject", decider=as_approver())
    with pytest.raises(NotFound):
        client_actions.supply_result(session_id, "call_404", output="x", resolved_by="app")


def test_getting_an_action_of_an_unknown_session_is_session_not_found(db):
    with pytest.raises(SessionNotFound):
        client_actions.get("ses_unknown", "call_123")


def test_getting_an_unknown_action_is_not_found(session_id):
    with pytest.raises(NotFound) as error:
        client_actions.get(session_id, "call_404")

    assert error.value.code == "not_found"


def test_the_list_is_oldest_first_and_filters(session_id):
    sessions.ensure(agent="billingAgent", session_id="ses_billing")
    open_approval(session_id, call_id="call_1")
    open_approval("ses_billing", call_id="call_2")
    open_approval(session_id, call_id="call_3")
    deciding.decide(session_id, "call_3", decision="approve", decider=as_approver())

    def listed(**filters):
        return [(action.session_id, action.call_id) for action in client_actions.listing("default", **filters)]

    assert listed() == [(session_id, "call_1"), ("ses_billing", "call_2"), (session_id, "call_3")]
    assert listed(status="waiting") == [(session_id, "call_1"), ("ses_billing", "call_2")]
    assert listed(status="approved") == [(session_id, "call_3")]
    assert listed(agent="billingAgent") == [("ses_billing", "call_2")]
    assert listed(session_id=session_id, status="waiting") == [(session_id, "call_1")]


def test_the_list_shows_overdue_actions_as_expired(session_id):
    open_expiring(session_id)

    with time_machine.travel(AFTER_EXPIRY, tick=False):
        assert list(client_actions.listing("default", status="waiting")) == []
        assert [action.call_id for action in client_actions.listing("default", status="expired")] == ["call_123"]


def test_the_list_rejects_an_unknown_status(db):
    with pytest.raises(InvalidInput):
        client_actions.listing("default", status="pending")


def test_an_approval_requested_in_the_log_is_decided_like_any_other(session_id):
    item_log.append(
        session_id,
        [{"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_file", "arguments": '{"path": "/tmp/x"}'}],
    )

    action, changed = deciding.decide(
        session_id, "mcpr_1", decision="approve", arguments={"path": "/tmp/y"}, decider=as_approver()
    )

    assert changed is True
    assert (action.arguments, action.approved_arguments) == ({"path": "/tmp/x"}, {"path": "/tmp/y"})
    assert snapshot(session_id)["runStatus"] == "running"

"""An approval that does not yet decide is announced as client_action.voted, an escalation as
client_action.escalated, each from the outbox in the transaction that made it (docs/notifications.md)."""

from datetime import timedelta

from historyhub.approvals import deciding, escalation, policies
from historyhub.audit.models import AuditEntry
from historyhub.history import client_actions, sessions
from historyhub.notifications.models import Delivery
from tests.notifications.conftest import deliver_due
from tests.support.actors import as_approver, make_approver


def events_received(receiver):
    return [request["body"]["type"] for request in receiver.requests]


def test_a_counted_vote_and_an_escalation_reach_the_channel(webhook, receiver, db):
    for username in ("ada", "ben"):
        make_approver(username)
    policies.replace(
        "default",
        [{"name": "two people", "requiredApprovals": 2, "escalateAfterSeconds": 60, "escalateTo": []}],
        actor="tests",
    )
    sessions.ensure(agent="supportAgent", session_id="refund-1")
    action, _ = client_actions.open_action("refund-1", call_id="r1", name="issue_refund", arguments={"amount": 20000})

    deciding.decide("refund-1", "r1", decision="approve", decider=as_approver("ada"))
    assert client_actions.get("refund-1", "r1").status == "waiting"
    assert AuditEntry.objects.filter(action="vote", actor="ada").count() == 1
    assert escalation.sweep_escalations(now=action.created_at + timedelta(seconds=61)) == 1
    deciding.decide("refund-1", "r1", decision="approve", decider=as_approver("ben"))

    assert list(Delivery.objects.order_by("pk").values_list("event", flat=True)) == [
        "client_action.opened",
        "client_action.voted",
        "client_action.escalated",
        "client_action.decided",
    ]
    deliver_due()
    assert events_received(receiver) == [
        "client_action.opened",
        "client_action.voted",
        "client_action.escalated",
        "client_action.decided",
    ]

"""How a client action shows on the timeline: its own ``client_action`` card, or the ``approval`` of the
call it gates (docs/timeline.md), and how a card reads once its action has expired, with nobody writing it.

Pure functions of an action or of a card's data; ``client_actions`` decides when they apply.
"""

from historyhub.history.dialects import base
from historyhub.history.models import ClientActionStatus as Status
from historyhub.history.models import EntryStatus as Card
from historyhub.history.models import has_expired
from historyhub.lib.times import format_time

# A client action's state as the timeline shows it.
CARD_STATUS = {
    Status.WAITING: Card.WAITING,
    Status.APPROVED: Card.COMPLETED,
    Status.COMPLETED: Card.COMPLETED,
    Status.REJECTED: Card.FAILED,
    # An answer stands in for the tool's output; a dismissed action ends without one, as a rejected one does.
    Status.ANSWERED: Card.COMPLETED,
    Status.DISMISSED: Card.FAILED,
    Status.FAILED: Card.FAILED,
    Status.EXPIRED: Card.FAILED,
}
# A gated call's state: approved means the tool may run now.
GATED_CALL_STATUS = {**CARD_STATUS, Status.APPROVED: Card.RUNNING}
SUMMARY = {
    Status.WAITING: "is waiting for the client.",
    Status.APPROVED: "completed.",
    Status.COMPLETED: "completed.",
    Status.REJECTED: "was rejected.",
    Status.ANSWERED: "was answered.",
    Status.DISMISSED: "was dismissed.",
    Status.FAILED: "failed.",
    Status.EXPIRED: "expired.",
}


def summary(name, status):
    return f"{name.replace('_', ' ')} {SUMMARY[status]}"


def card_data(action):
    """A client_action entry in the action's current state."""
    data = {
        "name": action.name,
        "callId": action.call_id,
        "status": CARD_STATUS[action.status],
        "summary": summary(action.name, action.status),
    }
    if action.is_waiting:
        data["arguments"] = action.arguments
        if action.expires_at is not None:
            data["expiresAt"] = format_time(action.expires_at)
        if action.agent_report:
            # What the agent's items said happened: unconfirmed, never a decision (docs/timeline.md).
            data["agentReport"] = action.agent_report
    data.update(execution_data(action))
    return data


def execution_data(action):
    """What a card says of the execution claims of its action: when it was claimed, when one was last refused."""
    execution = {
        "executedAt": format_time(action.executed_at),
        "executionRefusedAt": format_time(action.execution_refused_at),
    }
    return {name: value for name, value in execution.items() if value is not None}


def approval_data(action):
    """What a gated call's card says about its approval."""
    approval = {
        "status": action.status,
        "decision": action.decision or None,
        "comment": action.comment or None,
        "approvedArguments": action.approved_arguments,
        "response": action.response,
        "resolvedBy": action.resolved_by or None,
        "resolvedAt": format_time(action.resolved_at),
        "expiresAt": format_time(action.expires_at),
        "agentReport": (action.agent_report or None) if action.is_waiting else None,
        **execution_data(action),
    }
    return {name: value for name, value in approval.items() if value is not None}


def gated_call_changes(action):
    return {
        "status": GATED_CALL_STATUS[action.status],
        "summary": summary(action.name, action.status),
        "approval": approval_data(action),
    }


def card_changes(card, action):
    """How a card shows its action in the action's current state: (changes, fields removed)."""
    if card.type == "action":
        changes = gated_call_changes(action)
        if action.status == Status.APPROVED and "output" in card.data:
            # The tool ran before the approval was recorded: the card keeps the outcome it has, or, when the output
            # came while the action waited (the card waited on), the outcome the output reported.
            status = card.data["status"]
            if status == Card.WAITING:
                status = Card.FAILED if action.agent_report == Status.FAILED else Card.COMPLETED
            changes["status"] = status
        return changes, ()
    data = card_data(action)
    return data, tuple(name for name in ("arguments", "expiresAt", "agentReport") if name not in data)


def expired_view(entry_type, data):
    """A card whose action waits past its expiresAt, as the sweep will write it."""
    if entry_type == "client_action":
        name = data.get("name", "client_action")
        view = {**data, "status": Card.FAILED.value, "summary": summary(name, Status.EXPIRED)}
        view.pop("arguments", None)
        view.pop("expiresAt", None)
        return view
    approval = {**data["approval"], "status": Status.EXPIRED.value}
    return {
        **data,
        "status": Card.FAILED.value,
        "summary": summary(data.get("name", ""), Status.EXPIRED),
        "approval": approval,
    }


def waiting_until(entry_type, data):
    """When a card's action stops waiting by itself, or None."""
    if entry_type == "client_action" and data.get("status") == Card.WAITING:
        return base.parse_timestamp(data.get("expiresAt"))
    approval = data.get("approval") if entry_type == "action" else None
    if isinstance(approval, dict) and approval.get("status") == Status.WAITING:
        return base.parse_timestamp(approval.get("expiresAt"))
    return None


def as_shown(entry_type, data, now):
    """The card's data as a reader sees it at ``now``."""
    return expired_view(entry_type, data) if has_expired(waiting_until(entry_type, data), now) else data

"""Hosted MCP items of the Responses API: ``mcp_approval_request`` opens a client
action that a person (or the agent's own ``mcp_approval_response``) decides;
``mcp_call`` is an action that carries its own output; ``mcp_list_tools`` is
not history.
"""

from historyhub.history.dialects import base
from historyhub.history.models import ClientActionStatus, Decision, EntryStatus

NAME = "mcp"
TYPES = {"mcp_approval_request", "mcp_approval_response", "mcp_call", "mcp_list_tools"}


def owns(item_type):
    return item_type in TYPES


def as_message(item):
    return None


def call_ids(item):
    request_id = _request_id(item)
    return [base.stored_call_id(request_id)] if request_id else []


def _request_id(item):
    item_type = base.item_type(item)
    if item_type == "mcp_approval_response":
        value = item.get("approval_request_id")
        return value if isinstance(value, str) and value else None
    if item_type in ("mcp_approval_request", "mcp_call"):
        return base.item_id(item)
    return None


def opens_client_action(item):
    """An approval request opens one, which a person or the agent's approval response decides."""
    return base.item_type(item) == "mcp_approval_request" and _request_id(item) is not None


def project(projection, logged):
    item, item_type = logged.item, logged.type
    request_id = _request_id(item)
    if request_id is None:
        return
    call_id = base.stored_call_id(request_id)
    if opens_client_action(item):
        projection.open_client_action(
            call_id,
            base.text_field(item, "name", "mcp_tool")[:200],
            base.parse_arguments(item.get("arguments")),
            description=base.text_field(item, "server_label"),
            logged=logged,
        )
    elif item_type == "mcp_approval_response":
        approve = item.get("approve") is True
        projection.settle_client_action(
            call_id,
            ClientActionStatus.APPROVED if approve else ClientActionStatus.REJECTED,
            logged,
            decision=Decision.APPROVE if approve else Decision.REJECT,
            comment=base.text_field(item, "reason"),
        )
    elif item_type == "mcp_call":
        failed = bool(item.get("error")) or base.call_status(item) == EntryStatus.FAILED
        extra = {"output": item["output"]} if item.get("output") is not None else {}
        status = (
            EntryStatus.FAILED if failed else (EntryStatus.COMPLETED if "output" in extra else base.call_status(item))
        )
        projection.add_action(
            logged,
            call_id,
            base.name_of(item, "mcp_tool"),
            base.parse_arguments(item.get("arguments")),
            status,
            **extra,
        )


def to_chat(conversation, logged):
    item = logged.item
    if logged.type == "mcp_call" and base.item_id(item):
        conversation.add_call(item["id"], base.name_of(item, "mcp_tool"), item.get("arguments"))
        if item.get("output") is not None:
            conversation.add_output(item["id"], item["output"])

"""The Orcha dialect: agents that write the history items themselves
(``action``, ``client_action``, ``subagent``, ``skill``, ``evaluation``,
``session_completed``), and messages whose content is already MessageContent.
"""

from historyhub.history.dialects import base, content

NAME = "orcha"
PASSTHROUGH_TYPES = {"skill", "evaluation", "session_completed"}
TYPES = {"action", "client_action", "subagent"} | PASSTHROUGH_TYPES
# Fields of an item that the timeline entry does not repeat: they are its id, type and time.
ENVELOPE = ("id", "type", "createdAt")
ACTION_EXTRAS = ("durationMs", "output", "summary")


def owns(item_type):
    return item_type in TYPES


def as_message(item):
    return None


def call_ids(item):
    return [base.call_id(item)] if base.call_id(item) else []


def opens_client_action(item):
    """A ``client_action`` item with a call id that is still waiting (no status yet) opens one."""
    waiting = item.get("status") in (None, "waiting")
    return base.item_type(item) == "client_action" and bool(base.call_id(item)) and waiting


def passthrough_fields(item, *dropped):
    return {field: value for field, value in item.items() if field not in ENVELOPE and field not in dropped}


def project(projection, logged):
    item, item_type = logged.item, logged.type
    if item_type == "action":
        if logged.call_id:
            status = item.get("status") if isinstance(item.get("status"), str) else "running"
            extra = {field: item[field] for field in ACTION_EXTRAS if field in item}
            arguments = base.parse_arguments(item.get("arguments"))
            projection.add_action(logged, logged.call_id, base.name_of(item, "action"), arguments, status, **extra)
    elif item_type == "client_action":
        if logged.call_id:
            _project_client_action(projection, logged)
    elif item_type == "subagent":
        if logged.call_id:
            projection.add_entry(logged, f"subagent:{logged.call_id}", "subagent", passthrough_fields(item))
    else:
        key = base.item_id(item) or f"{item_type}:{logged.position}"
        projection.add_entry(logged, key, item_type, passthrough_fields(item))
        if item_type == "session_completed":
            projection.set_run_status("completed")


def _project_client_action(projection, logged):
    item, call_id = logged.item, logged.call_id
    if opens_client_action(item):
        projection.open_client_action(
            call_id,
            base.text_field(item, "name", "client_action")[:200],
            base.parse_arguments(item.get("arguments")),
            description=base.text_field(item, "description"),
            logged=logged,
        )
        return
    status = item.get("status")
    outcome = {"output": item["output"]} if "output" in item else {}
    if projection.settle_client_action(call_id, status, logged, **outcome):
        return
    if projection.has_client_action(call_id):
        # A report on an action that no longer waits: its card shows how it really ended, and no second card says
        # otherwise.
        return
    # Settled when it was written: shown as a resolved client action.
    projection.add_settled_client_action(logged, call_id, status, passthrough_fields(item, "arguments"))


def to_chat(conversation, logged):
    item = logged.item
    if logged.type == "action" and isinstance(item.get("callId"), str) and item["callId"]:
        conversation.add_call(item["callId"], base.name_of(item, "action"), item.get("arguments"))
        if "output" in item:
            conversation.add_output(item["callId"], item["output"])


# Content parts: MessageContent as the timeline shows it --------------------------------


def _media(part):
    uri = part.get("fileUri")
    return content.media(part["type"], uri, part.get("mimeType")) if isinstance(uri, str) and uri else None


def _file(part):
    path = part.get("filePath")
    return content.file(path, part.get("mimeType")) if isinstance(path, str) and path else None


for _kind in ("image", "audio", "video", "url"):
    content.register(_kind, _media)
content.register("file", _file)
# Text parts ({"type": "text", "text"}) are Chat Completions' too: the chat module reads them.

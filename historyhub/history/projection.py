"""The projections of the log: timeline entries and the session snapshot.

A ``Projection`` works on one session whose row the caller has locked, inside
the caller's database transaction, so the log and what is derived from it
change together. Each log item records in ``undo_json`` how to take back what
it changed in rows it did not create, so ``pop`` can restore them exactly.
"""

from datetime import timedelta

from django.db import IntegrityError, transaction

from historyhub import live
from historyhub.history import dialects, jsonvalues
from historyhub.history.models import ClientAction, ClientActionStatus, RunStatus, Session, TimelineEntry

CHILD_STATUS = {"completed": "completed", "paused": "paused", "failed": "failed"}
ACTION_ROW_STATUS = {
    ClientActionStatus.WAITING: "waiting",
    ClientActionStatus.APPROVED: "completed",
    ClientActionStatus.COMPLETED: "completed",
    ClientActionStatus.REJECTED: "failed",
    ClientActionStatus.FAILED: "failed",
    ClientActionStatus.EXPIRED: "failed",
}
ACTION_SUMMARY = {
    ClientActionStatus.WAITING: "is waiting for the client.",
    ClientActionStatus.APPROVED: "completed.",
    ClientActionStatus.COMPLETED: "completed.",
    ClientActionStatus.REJECTED: "was rejected.",
    ClientActionStatus.FAILED: "failed.",
    ClientActionStatus.EXPIRED: "expired.",
}
PREVIEW_LENGTH = 300


def client_action_summary(name, status):
    return f"{name.replace('_', ' ')} {ACTION_SUMMARY[status]}"


def client_action_row(action):
    """The timeline fields of a client action in its current state."""
    data = {
        "name": action.name,
        "callId": action.call_id,
        "status": ACTION_ROW_STATUS[action.status],
        "summary": client_action_summary(action.name, action.status),
    }
    if action.is_waiting:
        data["arguments"] = action.arguments
    return data


def subagent_status(run_status):
    return CHILD_STATUS.get(run_status or "", "running")


def subagent_row(child):
    status = subagent_status(child.run_status)
    return {
        "name": child.agent,
        "callId": child.parent_call_id,
        "childSessionId": child.id,
        "status": status,
        "summary": f"{child.agent} {status}.",
    }


class Projection:
    def __init__(self, session, now):
        self.session = session
        self.now = now
        self._rows = {}
        self._new_rows = []
        self._changed_rows = {}
        self._undo = None
        self._position = None

    # Rows ------------------------------------------------------------------

    def row(self, key):
        if key not in self._rows:
            self._rows[key] = TimelineEntry.objects.filter(session=self.session, key=key).order_by("-epoch").first()
        return self._rows[key]

    def add_row(self, key, kind, data, created_at, order, source_position=None, text=""):
        """A new timeline entry at the end of the current epoch; an id already used is left alone."""
        # A message's key names its position, which no earlier entry can have.
        existing = None if kind == "message" else self.row(key)
        if existing is not None and existing.epoch == self.session.epoch:
            return None
        self.session.history_count += 1
        entry = TimelineEntry(
            session=self.session,
            epoch=self.session.epoch,
            seq=self.session.history_count,
            order=order,
            key=key,
            type=kind,
            source_position=source_position,
            created_at=created_at,
            data=jsonvalues.dumps(data),
            text=text,
            changed_version=self.session.version,
        )
        self._rows[key] = entry
        self._new_rows.append(entry)
        return entry

    def change_row(self, key, changes, remove=()):
        entry = self.row(key)
        if entry is None:
            return None
        if self._undo is not None and entry.source_position != self._position:
            self._undo.setdefault("rows", []).append([key, entry.epoch, entry.data])
        data = entry.value
        data.update(changes)
        for field in remove:
            data.pop(field, None)
        entry.data = jsonvalues.dumps(data)
        entry.changed_version = self.session.version
        if entry.pk:
            self._changed_rows[key] = entry
        return entry

    def flush(self):
        TimelineEntry.objects.bulk_create(self._new_rows, batch_size=500)
        TimelineEntry.objects.bulk_update(self._changed_rows.values(), ["data", "changed_version"], batch_size=500)
        self._new_rows, self._changed_rows = [], {}

    # Snapshot ----------------------------------------------------------------

    def set_run_status(self, value):
        if self.session.run_status == value:
            return
        if self._undo is not None and "runStatus" not in self._undo:
            self._undo["runStatus"] = [self.session.run_status]
        self.session.run_status = value
        if self.session.parent_id:
            update_parent_of(self.session, self.now)

    # Client actions -------------------------------------------------------------

    def open_client_action(
        self, call_id, name, arguments, *, created_at, order, description="", expires_at=None, source_position=None
    ):
        """Open a waiting client action; returns (action, created). An existing call id is kept."""
        action = ClientAction(
            session=self.session,
            call_id=call_id,
            name=name,
            arguments_json=jsonvalues.dumps(arguments),
            description=description,
            created_at=created_at,
            expires_at=expires_at,
            epoch=self.session.epoch,
            source_position=source_position,
        )
        try:
            with transaction.atomic():
                action.save(force_insert=True)
        except IntegrityError:
            existing = ClientAction.objects.get(session=self.session, call_id=call_id)
            self.add_row(
                f"client-action:{call_id}",
                "client_action",
                client_action_row(existing),
                created_at,
                order,
                source_position,
            )
            return existing, False
        self.session.waiting_count += 1
        self.set_run_status(RunStatus.WAITING_FOR_CLIENT_ACTION)
        self.add_row(
            f"client-action:{call_id}", "client_action", client_action_row(action), created_at, order, source_position
        )
        return action, True

    def resolve_client_action(self, action, **fields):
        """Move a waiting action to its final state and project it."""
        if self._undo is not None:
            previous = {field: getattr(action, field) for field in fields}
            self._undo.setdefault("actions", []).append([action.call_id, _serialisable(previous)])
        for field, value in fields.items():
            setattr(action, field, value)
        action.save(update_fields=list(fields))
        self.session.waiting_count -= 1
        self.change_row(f"client-action:{action.call_id}", client_action_row(action), remove=("arguments",))
        if self.session.waiting_count == 0 and self.session.run_status == RunStatus.WAITING_FOR_CLIENT_ACTION:
            self.set_run_status(RunStatus.RUNNING)

    # Log items -------------------------------------------------------------

    def apply(self, log_item, item):
        """Project one log item that was just stored."""
        self._position = log_item.position
        self._undo = {}
        created_at = dialects.item_created_at(item, log_item.received_at)
        kind = log_item.kind
        handler = self._handlers.get(kind)
        if handler is None:
            if dialects.is_output(kind):
                handler = Projection._apply_output
            elif dialects.is_hosted_call(kind):
                handler = Projection._apply_hosted_call
            elif kind in dialects.ORCHA_PASSTHROUGH_TYPES:
                handler = Projection._apply_passthrough
        if handler is not None:
            handler(self, log_item, item, created_at)
        if log_item.usage_json:
            self.session.usage_json = _usage_json(
                dialects.add_usage(self.session.usage, jsonvalues.loads(log_item.usage_json))
            )
        undo, self._undo, self._position = self._undo, None, None
        return undo or None

    def _apply_message(self, log_item, item, created_at):
        role = log_item.role
        if role == "tool":
            self._complete_action(log_item, item, created_at)
            return
        if role not in ("user", "assistant"):
            return
        content = dialects.message_content(item)
        if content:
            # Search text and preview only; the content above keeps the exact text.
            text = jsonvalues.column_text(dialects.message_text(item))
            self.add_row(
                f"message:{log_item.position}",
                "message",
                {"role": role, "content": content},
                created_at,
                log_item.position,
                log_item.position,
                text,
            )
            self.session.last_message = (text or f"[{content[0]['type']}]")[:PREVIEW_LENGTH]
        for call in item.get("tool_calls") or []:
            if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"]:
                function = call.get("function") if isinstance(call.get("function"), dict) else {}
                self._add_action(
                    log_item,
                    dialects.stored_call_id(call["id"]),
                    function.get("name") or "tool",
                    dialects.parse_arguments(function.get("arguments")),
                    "running",
                    created_at,
                )

    def _add_action(self, log_item, call_id, name, arguments, status, created_at, **extra):
        data = {"name": name, "callId": call_id, "status": status, "arguments": arguments, **extra}
        self.add_row(f"action:{call_id}", "action", data, created_at, log_item.position, log_item.position)

    def _apply_function_call(self, log_item, item, created_at):
        if log_item.call_id:
            self._add_action(
                log_item,
                log_item.call_id,
                item.get("name") or "function",
                dialects.parse_arguments(item.get("arguments")),
                "running",
                created_at,
            )

    def _apply_hosted_call(self, log_item, item, created_at):
        call_id = log_item.call_id or dialects.item_key(item)
        if call_id:
            name = item.get("name") if isinstance(item.get("name"), str) else log_item.kind.removesuffix("_call")
            self._add_action(
                log_item,
                call_id,
                name,
                dialects.hosted_call_arguments(item),
                dialects.hosted_call_status(item),
                created_at,
            )

    def _apply_orcha_action(self, log_item, item, created_at):
        if log_item.call_id:
            extra = {field: item[field] for field in ("durationMs", "output", "summary") if field in item}
            status = item.get("status") if isinstance(item.get("status"), str) else "running"
            self._add_action(
                log_item,
                log_item.call_id,
                item.get("name") or "action",
                dialects.parse_arguments(item.get("arguments")),
                status,
                created_at,
                **extra,
            )

    def _complete_action(self, log_item, item, created_at):
        entry = self.row(f"action:{log_item.call_id}") if log_item.call_id else None
        if entry is None:
            return
        # Whole milliseconds counted exactly; float seconds * 1000 can land just below.
        duration = max(0, (created_at - entry.created_at) // timedelta(milliseconds=1))
        output = item.get("output", item.get("content"))
        status = "failed" if dialects.output_is_error(item) else "completed"
        self.change_row(entry.key, {"status": status, "durationMs": duration, "output": output})

    _apply_output = _complete_action

    def _apply_mcp_request(self, log_item, item, created_at):
        call_id = dialects.item_key(item)
        if call_id:
            self.open_client_action(
                call_id,
                _item_text(item, "name", "mcp_tool")[:200],
                dialects.parse_arguments(item.get("arguments")),
                description=_item_text(item, "server_label"),
                created_at=created_at,
                order=log_item.position,
                source_position=log_item.position,
            )

    def _apply_mcp_response(self, log_item, item, created_at):
        request_id = item.get("approval_request_id")
        if not isinstance(request_id, str):
            return
        action = ClientAction.objects.filter(
            session=self.session, call_id=dialects.stored_call_id(request_id), status="waiting"
        ).first()
        if action is not None:
            approve = item.get("approve") is True
            self.resolve_client_action(
                action,
                status=ClientActionStatus.APPROVED if approve else ClientActionStatus.REJECTED,
                decision="approve" if approve else "reject",
                comment=_item_text(item, "reason"),
                resolved_by="agent",
                resolved_at=created_at,
            )

    def _apply_orcha_client_action(self, log_item, item, created_at):
        if not log_item.call_id:
            return
        status = item.get("status")
        if status in (None, "waiting"):
            self.open_client_action(
                log_item.call_id,
                _item_text(item, "name", "client_action")[:200],
                dialects.parse_arguments(item.get("arguments")),
                description=_item_text(item, "description"),
                created_at=created_at,
                order=log_item.position,
                source_position=log_item.position,
            )
        elif status in ClientActionStatus.values and self._settle_waiting_action(
            log_item.call_id, status, item, created_at
        ):
            return
        else:
            # Already settled when it was written: shown like a resolved client action.
            data = {
                field: value for field, value in item.items() if field not in ("id", "type", "createdAt", "arguments")
            }
            if status in ACTION_ROW_STATUS:
                name = item.get("name") if isinstance(item.get("name"), str) else "client_action"
                data["status"] = ACTION_ROW_STATUS[status]
                data.setdefault("summary", client_action_summary(name, status))
            self.add_row(
                f"client-action:{log_item.call_id}",
                "client_action",
                data,
                created_at,
                log_item.position,
                log_item.position,
            )

    def _settle_waiting_action(self, call_id, status, item, created_at):
        """An Orcha item that reports how an earlier waiting action ended resolves it; False when none waits."""
        action = ClientAction.objects.filter(
            session=self.session, call_id=call_id, status=ClientActionStatus.WAITING
        ).first()
        if action is None:
            return False
        outcome = {"status": status, "resolved_by": "agent", "resolved_at": created_at}
        if "output" in item:
            outcome["output_json"] = jsonvalues.dumps(item["output"])
        self.resolve_client_action(action, **outcome)
        return True

    def _apply_subagent(self, log_item, item, created_at):
        if log_item.call_id:
            self._apply_passthrough(log_item, item, created_at, key=f"subagent:{log_item.call_id}")

    def _apply_passthrough(self, log_item, item, created_at, key=None):
        key = key or dialects.item_key(item) or f"{log_item.kind}:{log_item.position}"
        data = {field: value for field, value in item.items() if field not in ("id", "type", "createdAt")}
        self.add_row(key, log_item.kind, data, created_at, log_item.position, log_item.position)
        if log_item.kind == "session_completed":
            self.set_run_status(RunStatus.COMPLETED)

    _handlers = {
        "message": _apply_message,
        "function_call": _apply_function_call,
        "action": _apply_orcha_action,
        "mcp_approval_request": _apply_mcp_request,
        "mcp_approval_response": _apply_mcp_response,
        "client_action": _apply_orcha_client_action,
        "subagent": _apply_subagent,
    }


def _item_text(item, field, default=""):
    """A string field of an item for a text column of ours; the item keeps the exact value."""
    value = item.get(field)
    return jsonvalues.column_text(value) if isinstance(value, str) and value else default


def _usage_json(usage):
    return jsonvalues.dumps(usage) if usage else None


def _serialisable(fields):
    return {field: value.isoformat() if hasattr(value, "isoformat") else value for field, value in fields.items()}


def update_parent_of(child, now):
    """Reflect a child session's runStatus in its parent's subagent entry and runStatus."""
    parent = Session.objects.select_for_update().filter(pk=child.parent_id).first()
    if parent is None:
        return
    parent.version += 1
    projection = Projection(parent, now)
    projection.change_row(f"subagent:{child.parent_call_id}", subagent_row(child))
    projection.flush()
    fields = ["version", "updated_at"]
    if (
        parent.run_status == RunStatus.WAITING_FOR_SUBAGENT
        and child.run_status in (RunStatus.COMPLETED, RunStatus.FAILED)
        and not parent.children.exclude(pk=child.pk)
        .exclude(run_status__in=[RunStatus.COMPLETED, RunStatus.FAILED])
        .exists()
    ):
        parent.run_status = RunStatus.RUNNING
        fields.append("run_status")
    parent.save(update_fields=fields)
    live.announce(parent.id)

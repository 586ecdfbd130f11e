"""Projecting log items onto the timeline and the session snapshot (docs/architecture.md).

``Projection`` applies a batch of items that one write is storing. Each item
goes to the dialect module that owns it (``historyhub.history.dialects``),
which calls back the operations below; every change to something the item did
not create is recorded in the item's ``Undo`` on the way, so a pop can take it
back.
"""

from datetime import timedelta

from historyhub.history import client_action_cards, client_actions, dialects
from historyhub.history.dialects import base, content
from historyhub.history.models import EntryStatus, RunStatus
from historyhub.history.undo import usage_json
from historyhub.lib import jsonvalues, previews, validation


class Projection:
    def __init__(self, write):
        self.write = write
        self.session = write.session
        self.timeline = write.timeline
        self.logged = None

    def apply(self, batch):
        """Project stored items in order; returns each item's undo record as JSON text (or None)."""
        self.timeline.load_calls({call_id for logged in batch for call_id in dialects.call_ids(logged.item)})
        return [self.apply_one(logged) for logged in batch]

    def apply_one(self, logged):
        self.logged = logged
        with self.write.recording(logged.position) as undo:
            dialect = dialects.of(logged.item)
            if dialect is not None:
                dialect.project(self, logged)
        if logged.usage:
            self.session.usage_json = usage_json(base.add_usage(self.session.usage, logged.usage))
        return undo.dumps()

    # What dialects call ---------------------------------------------------------------------

    def add_message(self, logged, role, parts):
        """A user or assistant message; one with no content left (only reasoning, say) shows nothing."""
        if not parts:
            return
        # Search text and preview only: the entry's content keeps the exact text.
        text = jsonvalues.column_text(content.joined_text(parts, " "))
        position = logged.position
        self.timeline.add(
            f"message:{position}",
            "message",
            {"role": role, "content": parts},
            logged.created_at,
            position,
            source_position=position,
            text=text,
        )
        shown = previews.message(text, parts[0]["type"])
        # A message of white space says nothing: the list goes on showing the one before.
        if shown.strip():
            self.write.set_last_message(shown)

    def add_action(self, logged, call_id, name, arguments, status=EntryStatus.RUNNING, **extra):
        """A tool call. A call a client action already stands for (approval asked before the call was stored)
        shows on that action's card rather than on a second one."""
        shown = self.timeline.newest_for_call(call_id)
        if shown is not None and shown.type == "client_action" and "output" not in shown.data:
            return
        data = {"name": name, "callId": call_id, "status": str(status), "arguments": arguments, **extra}
        position = logged.position
        self.timeline.add(
            f"action:{call_id}",
            "action",
            data,
            logged.created_at,
            position,
            source_position=position,
            call_id=call_id,
        )

    def complete_action(self, logged, call_id, output, failed):
        """An output: the newest card of its call gets it, its duration, and its outcome. The output of a call whose
        client action still waits is the agent's report that the tool ran (``settle_client_action``): unless it
        settles the action, the card keeps waiting and shows the output beside the unconfirmed report."""
        card = self.timeline.newest_for_call(call_id)
        if card is None:
            return
        # Whole milliseconds counted exactly; float seconds * 1000 can land just below.
        duration = max(0, (logged.created_at - card.created_at) // timedelta(milliseconds=1))
        if _waits(card):
            reported = client_actions.Status.FAILED if failed else client_actions.Status.COMPLETED
            outcome = {"output_json": jsonvalues.dumps(output), "is_error": bool(failed)}
            action = self._report(call_id, reported, logged, outcome)
            if action is not None and action.is_waiting:
                self.change_entry(card, {"durationMs": duration, "output": output})
                return
        status = EntryStatus.FAILED if failed or _refused(card) else EntryStatus.COMPLETED
        self.change_entry(card, {"status": str(status), "durationMs": duration, "output": output})

    def add_entry(self, logged, key, entry_type, data):
        """An entry the item describes itself (Orcha's skill, evaluation, subagent …)."""
        position = logged.position
        call_id = logged.call_id if entry_type == "subagent" else ""
        self.timeline.add(key, entry_type, data, logged.created_at, position, source_position=position, call_id=call_id)

    def open_client_action(self, call_id, name, arguments, *, description, logged):
        """An action an item opens. The item is kept verbatim; the action's name has its control characters
        replaced, so it holds to the rule every other name does (docs/api.md, "Client actions")."""
        client_actions.open_in(
            self.write,
            call_id=call_id,
            name=validation.without_control_characters(name),
            arguments=arguments,
            description=description,
            created_at=logged.created_at,
            order=logged.position,
            logged=logged,
        )

    def settle_client_action(self, call_id, status, logged, **fields):
        """An item reports how a waiting action ended (``output``, ``decision``, ``comment``): a report, which
        ``client_actions.report_in`` lets settle the action or shows as unconfirmed (docs/dialects.md). False when no
        action of that call waits, or the status is none an action can end in."""
        if "output" in fields:
            fields["output_json"] = jsonvalues.dumps(fields.pop("output"))
        return self._report(call_id, status, logged, fields) is not None

    def _report(self, call_id, status, logged, outcome):
        """The waiting action of the call, once it took the report; None when none waits."""
        if status not in client_actions.Status.values or status == client_actions.Status.WAITING:
            return None
        action = client_actions.ClientAction.objects.filter(
            session=self.session, call_id=call_id, status=client_actions.Status.WAITING
        ).first()
        if action is not None:
            client_actions.report_in(self.write, action, status, at=logged.created_at, **outcome)
        return action

    def has_client_action(self, call_id):
        """Whether the session holds a client action of this call, in whatever state."""
        return client_actions.ClientAction.objects.filter(session=self.session, call_id=call_id).exists()

    def add_settled_client_action(self, logged, call_id, status, data):
        """A client action that was over when it was written: shown as a resolved one."""
        if status in client_actions.Status.values:
            name = base.name_of(logged.item, "client_action")
            data = {**data, "status": client_action_cards.CARD_STATUS[status]}
            data.setdefault("summary", client_action_cards.summary(name, status))
        position = logged.position
        self.timeline.add(
            f"client-action:{call_id}",
            "client_action",
            data,
            logged.created_at,
            position,
            source_position=position,
            call_id=call_id,
        )

    def set_run_status(self, value):
        self.write.set_run_status(RunStatus(value))

    def change_entry(self, entry, changes, remove=()):
        self.write.change_entry(entry, changes, remove)


def _waits(card):
    """Whether the card shows a client action that waits (its own card, or the approval of the call it gates)."""
    if card.type == "client_action":
        return card.data.get("status") == EntryStatus.WAITING
    approval = card.data.get("approval")
    return isinstance(approval, dict) and approval.get("status") == client_actions.Status.WAITING


# An approval's states that end a call before its tool ran.
REFUSED = (client_actions.Status.REJECTED, client_actions.Status.EXPIRED, client_actions.Status.FAILED)


def _refused(card):
    """Whether the call on this card was refused (rejected, expired) before its output came."""
    if card.type == "action":
        approval = card.data.get("approval")
        return isinstance(approval, dict) and approval.get("status") in REFUSED
    return card.data.get("status") == EntryStatus.FAILED

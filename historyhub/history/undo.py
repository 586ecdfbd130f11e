"""How popping a log item takes back everything projecting it did (docs/architecture.md).

What an item *created* (timeline entries, client actions) carries its position
as ``source_position`` and is deleted by it. What an item *changed* in rows it
did not create is recorded here, in an ``Undo`` stored with the item
(``Item.undo_json``). The write holds the undo of the item it is projecting
(``Write.recording``) and records every change made through it
(``Write.change_entry``, ``set_run_status``, ``set_last_message``,
``change_action``), so no change can forget its reversal; a pop
(``item_log.take_back``) reverts both. A new kind of change gets its recording method here and its
``Write`` method beside the others.
"""

import json
from dataclasses import dataclass, field

from historyhub.history import client_action_cards as cards
from historyhub.history.dialects import base
from historyhub.history.models import ClientAction
from historyhub.lib import jsonvalues
from historyhub.lib.times import format_time

_UNSET = object()
# Client action fields a log item may change, and how each is kept in JSON.
_ACTION_FIELDS = (
    "status",
    "resolved_at",
    "resolved_by",
    "decision",
    "comment",
    "approved_arguments_json",
    "approved_arguments_digest",
    "output_json",
    "is_error",
    "agent_report",
    "reported",
)


@dataclass
class Undo:
    """The changes one log item made to rows it did not create, each with its value before."""

    position: int | None = None  # the item's own; what it created is taken back by position, not recorded
    entries: list = field(default_factory=list)  # [epoch, key, data text before]
    actions: list = field(default_factory=list)  # [call id, {field: value before}]
    run_status: object = _UNSET
    # Which write set the run status before the item, and which one the item's: a pop restores the status only
    # while the item's is still the latest (an action decided since, say, set it again).
    run_status_version: int = 0
    run_status_set_in: int | None = None
    last_message: object = _UNSET

    # Recording, as the projection makes each change -----------------------------------

    def entry_changing(self, entry):
        if entry.source_position is not None and entry.source_position == self.position:
            return
        if not any(epoch == entry.epoch and key == entry.key for epoch, key, _ in self.entries):
            self.entries.append([entry.epoch, entry.key, entry.stored_data()])

    def action_changing(self, action, fields=_ACTION_FIELDS):
        """Only the fields the item changes are put back: a report that leaves the action waiting must not take
        back a decision made after it."""
        before = {name: getattr(action, name) for name in _ACTION_FIELDS if name in fields}
        if "resolved_at" in before:
            before["resolved_at"] = format_time(before["resolved_at"])
        self.actions.append([action.call_id, before])

    def run_status_changing(self, previous, previous_version, version):
        if self.run_status is _UNSET:
            self.run_status, self.run_status_version = previous, previous_version
        self.run_status_set_in = version

    def last_message_changing(self, previous):
        if self.last_message is _UNSET:
            self.last_message = previous

    # Storing ------------------------------------------------------------------------

    def dumps(self):
        """The JSON text kept with the item, or None when the item changed nothing it did not create."""
        data = {}
        if self.entries:
            data["entries"] = self.entries
        if self.actions:
            data["actions"] = self.actions
        if self.run_status is not _UNSET:
            data["runStatus"] = self.run_status
            data["runStatusVersion"] = self.run_status_version
            data["runStatusSetIn"] = self.run_status_set_in
        if self.last_message is not _UNSET:
            data["lastMessage"] = self.last_message
        return jsonvalues.dumps(data) if data else None

    @classmethod
    def loads(cls, text):
        if not text:
            return cls()
        data = json.loads(text)
        return cls(
            entries=data.get("entries", []),
            actions=data.get("actions", []),
            run_status=data.get("runStatus", _UNSET),
            run_status_version=data.get("runStatusVersion", 0),
            run_status_set_in=data.get("runStatusSetIn"),
            last_message=data.get("lastMessage", _UNSET),
        )

    # Reverting -----------------------------------------------------------------------

    def revert(self, write):
        session = write.session
        for call_id, fields in reversed(self.actions):
            if "resolved_at" in fields:
                fields = dict(fields, resolved_at=base.parse_timestamp(fields["resolved_at"]))
            ClientAction.objects.filter(session=session, call_id=call_id).update(**fields)
            write.action_changed(call_id)
        for epoch, key, data in reversed(self.entries):
            write.timeline.restore(epoch, key, data)
        # A card restored from before the item may show a client action that was decided since (through the API or
        # the dashboard, not by an item): the action as it is now wins over what the card showed then.
        restored = [key for epoch, key, _ in self.entries if epoch == session.epoch]
        for action in ClientAction.objects.filter(session=session, entry_key__in=restored):
            card = write.timeline.get(action.entry_key)
            if card is not None:
                changes, removed = cards.card_changes(card, action)
                write.change_entry(card, changes, removed)
        set_since = self.run_status_set_in is not None and session.run_status_version != self.run_status_set_in
        if self.run_status is not _UNSET and not set_since:
            write.restore_run_status(self.run_status, self.run_status_version)
        if self.last_message is not _UNSET:
            session.last_message = self.last_message


def usage_json(usage):
    return jsonvalues.dumps(usage) if usage else None

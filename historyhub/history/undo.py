"""How popping a log item takes back everything projecting it did (docs/architecture.md).

What an item *created* (timeline entries, client actions) carries its position
as ``source_position`` and is deleted by it. What an item *changed* in rows it
did not create is recorded here, in an ``Undo`` stored with the item
(``Item.undo_json``), by the same methods the projection calls as it changes
them; ``take_back`` reverts both. A new kind of change gets its recording
method and its reversal side by side in this module.
"""

import json
from dataclasses import dataclass, field

from django.db.models import F

from historyhub.history import client_actions, jsonvalues
from historyhub.history.dialects import base
from historyhub.history.models import ClientAction, TimelineEntry

_UNSET = object()
# Client action fields a log item may change, and how each is kept in JSON.
_ACTION_FIELDS = (
    "status",
    "resolved_at",
    "resolved_by",
    "decision",
    "comment",
    "approved_arguments_json",
    "output_json",
    "is_error",
)


@dataclass
class Undo:
    """The changes one log item made to rows it did not create, each with its value before."""

    position: int | None = None  # the item's own; what it created is taken back by position, not recorded
    entries: list = field(default_factory=list)  # [epoch, key, data text before]
    actions: list = field(default_factory=list)  # [call id, {field: value before}]
    run_status: object = _UNSET
    last_message: object = _UNSET

    # Recording, as the projection makes each change -----------------------------------

    def entry_changing(self, entry):
        if entry.source_position is not None and entry.source_position == self.position:
            return
        if not any(epoch == entry.epoch and key == entry.key for epoch, key, _ in self.entries):
            self.entries.append([entry.epoch, entry.key, entry.stored_data()])

    def action_changing(self, action):
        before = {name: getattr(action, name) for name in _ACTION_FIELDS}
        before["resolved_at"] = base.format_time(before["resolved_at"])
        self.actions.append([action.call_id, before])

    def run_status_changing(self, previous):
        if self.run_status is _UNSET:
            self.run_status = previous

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
            last_message=data.get("lastMessage", _UNSET),
        )

    # Reverting -----------------------------------------------------------------------

    def revert(self, write):
        session = write.session
        for epoch, key, data in reversed(self.entries):
            TimelineEntry.objects.filter(session=session, epoch=epoch, key=key).update(
                data=data, changed_version=session.version
            )
        for call_id, fields in reversed(self.actions):
            fields = dict(fields, resolved_at=base.parse_timestamp(fields["resolved_at"]))
            ClientAction.objects.filter(session=session, call_id=call_id).update(**fields)
            write.action_changed(call_id)
        if self.run_status is not _UNSET:
            write.set_run_status(self.run_status)
        if self.last_message is not _UNSET:
            session.last_message = self.last_message


def take_back(write, row):
    """Undo everything the log item ``row`` (the newest of the logical history) did, then delete it."""
    session = write.session
    created = TimelineEntry.objects.filter(session=session, epoch=session.epoch, source_position=row.position)
    removed_keys = list(created.values_list("key", flat=True))
    removed = sorted(created.values_list("seq", flat=True), reverse=True)
    if removed:
        created.delete()
        # Entries after each removed one move up, so ranks stay dense (history pages rely on it).
        for seq in removed:
            TimelineEntry.objects.filter(session=session, epoch=session.epoch, seq__gt=seq).update(seq=F("seq") - 1)
        session.history_count -= len(removed)
    opened = ClientAction.objects.filter(session=session, epoch=session.epoch, source_position=row.position)
    for call_id in opened.values_list("call_id", flat=True):
        write.action_changed(call_id)
    opened.delete()
    Undo.loads(row.undo_json).revert(write)
    # An action asked about this item's call (opened through the API) stays, and shows on a card of its own.
    client_actions.show_again(write, ClientAction.objects.filter(session=session, entry_key__in=removed_keys))
    if row.usage_json:
        session.usage_json = usage_json(base.add_usage(session.usage, json.loads(row.usage_json), -1))
    session.item_count -= 1
    row.delete()


def usage_json(usage):
    return jsonvalues.dumps(usage) if usage else None

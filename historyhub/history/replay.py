"""Replaying a session's log and client actions through the write path, as an import recreates them
(docs/data.md, "Import").

An export holds a session's log (every item at its position, in its epoch) and its client actions as they
ended; it does not hold the timeline, which the write path projected from them as they came. A replay sends
them through the same code again, in the order the export lets it tell, one write per step as the API made
them (``writing(…, replaying=True)``, which tells no channel): items are stored and projected by
``item_log.store``, a new epoch starts as a compaction starts it (``item_log.start_epoch``), actions opened
through the API open where they took their place (``client_actions.open_in``) and are decided where their
decision came (``client_actions.resolve_in``). So an imported session's timeline, cards, counters, preview,
usage, search rows and undo records are the ones the write path makes, by the one rule that makes them.

The order, from what the export holds:

- A position no item holds was taken by a client action opened through the API (or a child session, or an
  item since popped or replaced). The actions that no log item opens (``dialects.opened_call_id``), oldest
  first, each take the first such position after the first item that names their call (the call they gate), or
  the first such position when no item before it names their call; those left over open after the last item.
- A decision (or result) is made just before the first later item that names the action's call (the output
  that follows an approval), or after the last item when none does. An action the agent's items settled
  (``reported``) is settled by its item, as it was, where this project's policies let a report settle it.

What the export says of how an action ended is its record, never a decision made here: a resolved action gets
the exported outcome (``client_actions.resolve_in``, the one place a status changes) and its exported fields,
marked ``imported``; the replay refuses a line whose items settled an action otherwise than it says. An action
still waiting is governed by this project's policies as they are now (``governance.govern``), with the
importing key as its opener (``by_key``); the line's policy and escalation are not kept.
- An item carries no time of its own unless it has ``createdAt``; it is taken to have arrived at the latest
  moment the export knows before it (the session's creation, an action's opening or decision).
"""

from dataclasses import dataclass

from django.conf import settings

from historyhub.history import client_actions, dialects, governance, item_log
from historyhub.history.models import ClientAction, ClientActionStatus
from historyhub.history.writes import writing
from historyhub.lib.errors import InvalidInput

# The fields an export holds of a resolved client action: set as exported once the replay made it (its status is
# the one the replay resolved it to).
EXPORTED_FIELDS = (
    "name",
    "arguments_json",
    "description",
    "created_at",
    "expires_at",
    "resolved_at",
    "resolved_by",
    "decision",
    "comment",
    "approved_arguments_json",
    "allowed_responses",
    "response_schema_json",
    "response_json",
    "policy_json",
    "escalate_at",
    "escalated_at",
    "output_json",
    "is_error",
    "executed_at",
    "reported",
    "imported",
)
# What an export holds of an action still waiting: what it asks. Who decides it is this project's business.
WAITING_FIELDS = (
    "name",
    "arguments_json",
    "description",
    "created_at",
    "expires_at",
    "allowed_responses",
    "response_schema_json",
)
# How an action ended, as resolve_in takes it.
OUTCOME_FIELDS = (
    "status",
    "resolved_at",
    "resolved_by",
    "decision",
    "comment",
    "approved_arguments_json",
    "response_json",
    "output_json",
    "is_error",
    "reported",
)
# How an export names an action that its items settled (before the ``reported`` mark, "agent").
SETTLED_BY_ITS_ITEMS = ("agent", client_actions.REPORTED_BY)


@dataclass
class LoggedItem:
    position: int
    epoch: int
    item: dict
    text: str


def replay(session, items, actions, *, since, run_status, by_key=None):
    """Create ``session`` (unsaved), store ``items`` (LoggedItem, positions rising) and recreate ``actions``
    (unsaved ClientAction rows as exported, oldest first) in it; ``since`` is when the session was created,
    ``run_status`` its run status as exported and ``by_key`` the importing key. Returns the saved client actions by
    call id."""
    with writing(session.pk, create=session, replaying=True, by_key=by_key):
        pass
    session_replay = _Replay(session, items, actions, since, by_key)
    for logged in items:
        session_replay.add(logged)
    return session_replay.finish(run_status)


class _Replay:
    def __init__(self, session, items, actions, since, by_key):
        self.key = session.pk
        self.project, self.agent = session.project_id, session.agent
        self.by_key = by_key
        # Where the log goes on, as the last step left it.
        self.next_position = 1
        self.epoch = 0
        self.new_epochs = 0
        self.exported = {action.call_id: action for action in actions}
        opened_by_items = {dialects.opened_call_id(logged.item) for logged in items}
        self.through_api = [action for action in actions if action.call_id not in opened_by_items]
        self.first_named = {}
        for logged in items:
            for call_id in dialects.call_ids(logged.item):
                self.first_named.setdefault(call_id, logged.position)
        # Actions opened and decided since, to be resolved before the next item that names their call.
        self.due = {}
        self.moment = since
        self.batch = []

    def step(self):
        """One write of the replay, as one request made it."""
        return writing(self.key, replaying=True, by_key=self.by_key)

    def add(self, logged):
        if logged.position > self.next_position + len(self.batch):
            self.flush()
            self.open_in_gaps(range(self.next_position, logged.position))
            self.next_position = logged.position
        if logged.epoch > self.epoch + self.new_epochs:
            # A compaction: the new epoch starts in the write that stores its first items.
            self.flush()
            self.new_epochs = logged.epoch - self.epoch
        decided = [call_id for call_id in dialects.call_ids(logged.item) if call_id in self.due]
        if decided:
            self.flush()
            for call_id in decided:
                self.resolve(self.due.pop(call_id))
        self.batch.append((logged.item, logged.text))
        if len(self.batch) >= settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST:
            # No more in one write than an append may send.
            self.flush()
        opened = dialects.opened_call_id(logged.item)
        if opened in self.exported:
            self.decided_later(self.exported[opened])

    def flush(self):
        if not self.batch:
            return
        with self.step() as write:
            for _ in range(self.new_epochs):
                item_log.start_epoch(write)
            write.session.next_position = self.next_position
            item_log.store(write, self.batch, received_at=self.moment)
        self.next_position, self.epoch = write.session.next_position, write.session.epoch
        self.batch, self.new_epochs = [], 0

    def open_in_gaps(self, positions):
        """At each free position, oldest first, the first action that fits there: the free positions where none
        fits are stepped over, not walked (a gap may be as wide as the positions a line names)."""
        position = positions.start
        while self.through_api:
            position = max(position, min(self.first_fit(action) for action in self.through_api))
            if position >= positions.stop:
                return
            action = next(action for action in self.through_api if self.fits(action, position))
            self.through_api.remove(action)
            self.open(action, position)
            position += 1

    def first_fit(self, action):
        """The first position the action may take: after the first item that names its call."""
        named = self.first_named.get(action.call_id)
        return 0 if named is None else named + 1

    def fits(self, action, position):
        return position >= self.first_fit(action)

    def open(self, action, position=None):
        """Open ``action`` as the API did, at ``position`` (a gap in the log) or after the last item."""
        with self.step() as write:
            write.session.next_position = position or self.next_position
            client_actions.open_in(
                write,
                call_id=action.call_id,
                name=action.name,
                arguments=action.arguments,
                description=action.description,
                created_at=action.created_at,
                order=write.take_position(),
                expires_at=action.expires_at,
                allowed=action.allowed,
                response_schema=action.response_schema,
            )
        if position is None:
            self.next_position = write.session.next_position
        self.moment = max(self.moment, action.created_at)
        self.decided_later(action)

    def decided_later(self, action):
        settled_by_its_items = action.reported or action.resolved_by in SETTLED_BY_ITS_ITEMS
        if action.status != ClientActionStatus.WAITING and not settled_by_its_items:
            self.due[action.call_id] = action

    def resolve(self, action):
        with self.step() as write:
            row = ClientAction.objects.filter(session=write.session, call_id=action.call_id).first()
            if row is None or not row.is_waiting:
                write.discard()
                return
            client_actions.resolve_in(write, row, **{name: getattr(action, name) for name in OUTCOME_FIELDS})
        if action.resolved_at is not None:
            self.moment = max(self.moment, action.resolved_at)

    def finish(self, run_status):
        self.flush()
        actions = ClientAction.objects.filter(session_id=self.key)
        opened = set(actions.values_list("call_id", flat=True))
        for action in self.exported.values():
            if action.call_id not in opened:
                self.open(action)
        for action in self.exported.values():
            if action.status != ClientActionStatus.WAITING:
                self.resolve(action)
        # The run status as exported: set through the API (sessions.update) where the log does not tell it.
        with self.step() as write:
            if write.session.run_status == run_status:
                write.discard()
            else:
                write.set_run_status(run_status)
        rows = {row.call_id: row for row in actions}
        resolved, waiting = [], []
        for call_id, action in self.exported.items():
            row = rows[call_id]
            if action.status != ClientActionStatus.WAITING:
                if row.status != action.status:
                    raise InvalidInput(
                        f"client action {call_id!r} is {action.status} in the line, but its items settle it as "
                        f"{row.status}."
                    )
                action.imported = True
                for name in EXPORTED_FIELDS:
                    setattr(row, name, getattr(action, name))
                row.measure_texts()
                row.digest_arguments()
                resolved.append(row)
            elif row.is_waiting:
                for name in WAITING_FIELDS:
                    setattr(row, name, getattr(action, name))
                row.measure_texts()
                row.digest_arguments()
                governance.govern(row, self.project, self.agent, row.created_at)
                waiting.append(row)
        ClientAction.objects.bulk_update(
            resolved, [*EXPORTED_FIELDS, *ClientAction.TEXT_MEASURES, *ClientAction.DIGESTS]
        )
        ClientAction.objects.bulk_update(
            waiting,
            (
                *WAITING_FIELDS,
                *ClientAction.TEXT_MEASURES,
                *ClientAction.DIGESTS,
                "policy_json",
                "escalate_at",
                "escalated_at",
            ),
        )
        return rows

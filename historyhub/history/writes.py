"""The one way to change a session: ``writing(session_key)`` (docs/architecture.md).

Every change to a session's log, timeline, client actions or snapshot runs
inside ``writing``. It takes the session's row lock in a database transaction
(``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's IMMEDIATE transaction already
holds the write lock), raises the session's ``version`` so pollers see the
change, hands the caller a ``Write``, and on the way out writes the timeline
entries, recounts waiting client actions when they changed, saves the
snapshot, tells the parent session about a child's new run status and announces
the change to waiters (``historyhub.live``). A write that raises changes nothing.
Client actions it opens and resolves reach the project's channels through it
(``Write.notify``), so a write that replays history (an import) tells nobody.
"""

from contextlib import contextmanager

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from historyhub import live
from historyhub.history import digests, ownership, subagents, usage_hours
from historyhub.history.action_events import announce, announce_resolved
from historyhub.history.models import ClientAction, ClientActionStatus, Session
from historyhub.history.timeline import TimelineWriter
from historyhub.history.undo import Undo
from historyhub.lib import bulk, jsonvalues
from historyhub.lib.errors import SessionNotFound

# What a write may change on the session row.
STATE_FIELDS = [
    "next_position",
    "epoch",
    "epoch_start",
    "item_count",
    "history_count",
    "waiting_count",
    "waiting_until",
    "usage_json",
    "last_message",
    "version",
    "run_status",
    "run_status_version",
    "updated_at",
]


@contextmanager
def writing(session_key, *, create_as=None, create=None, missing_ok=False, by_key=None, replaying=False):
    """Lock the session whose key (``project/id``, or ``id`` in the default project) is ``session_key`` and
    yield a ``Write``.

    A session that does not exist yet is created first when ``create_as`` names its agent, or as ``create``
    (an unsaved Session) says; ``Write.created`` tells whether this write made it. With ``missing_ok``, an
    unknown session yields None and nothing happens. ``by_key`` is the API key making the change, if one
    is: the client actions it opens remember it (it may never decide them). ``replaying`` says the write
    recreates what happened elsewhere, before (an import, ``historyhub.history.replay``): no channel hears of it,
    and a parent session is not told of its child's run status.
    """
    if create is None and create_as is not None:
        create = Session.new(session_key, agent=create_as)
    with transaction.atomic():
        session, created = _lock(session_key, create)
        if session is None:
            if not missing_ok:
                raise SessionNotFound(session_key)
            yield None
            return
        write = Write(session, by_key, created, replaying)
        yield write
        write.finish()


def _lock(session_key, create):
    session = bulk.select_for_update(Session, session_key)
    if session is not None or create is None:
        return session, False
    # Concurrent creators both get here: one insert wins, the other's finds the row taken, then both queue on
    # the lock.
    created = bulk.insert_if_absent(create)
    return bulk.select_for_update(Session, session_key), created


class Write:
    """A change in progress to one locked session."""

    def __init__(self, session, by_key=None, created=False, replaying=False):
        self.session = session
        # Kept: a deleted session's row has no primary key any more, and what is announced still names it.
        self.session_key = session.pk
        self.by_key = by_key
        self.created = created
        self.replaying = replaying
        self.now = timezone.now()
        # The undo record of the log item being projected, if one is: every change below is recorded in it.
        self.undo = None
        session.version += 1
        self.timeline = TimelineWriter(session, session.version)
        self._actions_changed = False
        self._changed_calls = set()
        self._all_calls_changed = False
        self._run_status_changed = False
        self._discarded = False
        self._deleted = False
        self._also_saved = []
        # What this write adds to and takes from the usage tallies (``usage_hours``), upserted as it finishes.
        self.usage = usage_hours.tallies()
        if created:
            usage_hours.count_opened(self.usage, session, [session.created_at], index=usage_hours.SESSIONS)

    # Changes the projections and client actions make --------------------------------------

    @contextmanager
    def recording(self, position):
        """Record every change made inside the block as the undo of the log item at ``position``; yields the
        ``Undo``, which the item stores. A change made while projecting an item cannot forget its reversal."""
        self.undo = Undo(position=position)
        try:
            yield self.undo
        finally:
            self.undo = None

    def change_entry(self, entry, changes, remove=()):
        if self.undo is not None:
            self.undo.entry_changing(entry)
        self.timeline.change(entry, changes, remove)

    def set_run_status(self, value):
        session = self.session
        if session.run_status == value:
            return
        if self.undo is not None:
            self.undo.run_status_changing(session.run_status, session.run_status_version, session.version)
        session.run_status, session.run_status_version = value, session.version
        self._run_status_changed = True

    def restore_run_status(self, value, version):
        """The run status as it was before a log item that is being taken back, set by the write that set it."""
        if (self.session.run_status, self.session.run_status_version) == (value, version):
            return
        self.session.run_status, self.session.run_status_version = value, version
        self._run_status_changed = True

    def set_last_message(self, preview):
        if self.undo is not None:
            self.undo.last_message_changing(self.session.last_message)
        self.session.last_message = preview

    def change_action(self, action, **fields):
        """Change a client action's fields and save them; approved arguments get their digest with them."""
        if "approved_arguments_json" in fields:
            approved = fields["approved_arguments_json"]
            fields["approved_arguments_digest"] = (
                digests.of(jsonvalues.loads(approved)) if approved is not None else None
            )
        if self.undo is not None:
            self.undo.action_changing(action, fields)
        for name, value in fields.items():
            setattr(action, name, value)
        action.save(update_fields=list(fields))
        self.action_changed(action.call_id)

    def client_actions_changed(self):
        """What waits for a person may have changed: the waiting count is counted again, and the inbox hears it."""
        self._actions_changed = True

    def action_changed(self, call_id):
        """This client action was resolved, restored or deleted: its waiters hear it (and only they)."""
        self._changed_calls.add(call_id)
        self.client_actions_changed()

    def every_action_changed(self):
        """Every client action of the session may be gone or changed (cleared, deleted)."""
        self._all_calls_changed = True
        self.client_actions_changed()

    def notify(self, event, action):
        """Tell the project's channels of ``event`` about ``action`` (``action_events``), in this
        transaction; a replay tells nobody: what it recreates was announced where it happened."""
        if not self.replaying:
            announce(event, action)

    def notify_resolved(self, action):
        """Tell the channels of the final state ``action`` just reached."""
        if not self.replaying:
            announce_resolved(action)

    def also_save(self, *fields):
        """Session fields beyond the snapshot's that this write changed (name, metadata, status)."""
        self._also_saved.extend(fields)

    def discard(self):
        """Nothing changed after all (a repeat of what is already so): finish writes nothing."""
        self._discarded = True

    def delete_session(self):
        """The session goes, with its descendants and everything they own (``ownership``): waiters and pages
        hear it."""
        self._deleted = True
        return ownership.delete_sessions([self.session_key])

    def count_usage(self, found):
        """Add tallies (``usage_hours``) to what this write upserts as it finishes."""
        usage_hours.merge(self.usage, found)

    def take_position(self):
        """A position for an entry that no log item placed (a client action or child opened through the API)."""
        self.session.next_position += 1
        return self.session.next_position - 1

    # Finishing -----------------------------------------------------------------------------

    def finish(self):
        if self._discarded:
            return
        if self._deleted:
            # ``ownership`` took the deleted sessions' rows away from the tallies, this write's own with them.
            usage_hours.add(self.usage)
            return
        session = self.session
        self.timeline.flush()
        if self._actions_changed:
            self.count_waiting_actions()
        session.updated_at = self.now
        # Waits and live pages hear of it once the transaction commits (historyhub.live): on PostgreSQL the
        # snapshot's own UPDATE sends the announcement, a round trip less for every write.
        change = self.change()
        announcement = live.announcement(change)
        saved = bulk.save_fields(session, STATE_FIELDS + self._also_saved, returning=announcement)
        if announcement is None or not saved:
            live.announce(change)
        # A replay recreates a child as it ended: its parent, imported before it, shows that already.
        if self._run_status_changed and session.parent_id and not self.replaying:
            _tell_parent(session)
        # Last, after every session lock this transaction takes (the parent's above), so the hour's tally row,
        # which other sessions' writes share, is locked only until the commit and never before a session's lock
        # (two writes taking them in the other order could deadlock).
        usage_hours.add(self.usage)

    def change(self):
        """What this write announces: the session, the client actions it changed, whether the inbox did."""
        return live.Change(
            session=self.session_key,
            actions=frozenset(self._changed_calls),
            all_actions=self._all_calls_changed,
            inbox=self._actions_changed,
        )

    def count_waiting_actions(self):
        """Count the session's waiting client actions again from their rows: ``waiting_count``, and in
        ``waiting_until`` when the last of them can still be decided (None: one never expires).

        The one rule for both fields. ``finish`` applies it whenever client actions changed; code inside the
        write that must know the count before then (``client_actions.align_run_status``) calls it too.
        """
        state = ClientAction.objects.filter(session=self.session, status=ClientActionStatus.WAITING).aggregate(
            count=Count("pk"), unbounded=Count("pk", filter=Q(expires_at__isnull=True)), until=Max("expires_at")
        )
        self.session.waiting_count = state["count"]
        self.session.waiting_until = None if state["unbounded"] else state["until"]


def _tell_parent(child):
    """A child's run status shows on its parent's subagent entry and may end the parent's wait."""
    with writing(child.parent_id, missing_ok=True) as parent:
        if parent is None:
            return
        subagents.child_changed(parent, child)

"""The one way to change a session: ``writing(session_id)`` (docs/architecture.md).

Every change to a session's log, timeline, client actions or snapshot runs
inside ``writing``. It takes the session's row lock in a database transaction
(``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's IMMEDIATE transaction already
holds the write lock), raises the session's ``version`` so pollers see the
change, hands the caller a ``Write``, and on the way out writes the timeline
entries, recounts waiting client actions when they changed, saves the
snapshot, tells the parent session about a child's new run status and announces
the change to waiters (``historyhub.live``). A write that raises changes nothing.
"""

from contextlib import contextmanager

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from historyhub import live
from historyhub.history import bulk, subagents
from historyhub.history.errors import SessionNotFound
from historyhub.history.models import ClientAction, ClientActionStatus, Session
from historyhub.history.timeline import TimelineWriter

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
    "updated_at",
]


@contextmanager
def writing(session_id, *, create_as=None, missing_ok=False, by_key=None):
    """Lock the session and yield a ``Write``; ``create_as`` names the agent of a session created here.

    With ``missing_ok``, an unknown session yields None and nothing happens. ``by_key`` is the API key
    making the change, if one is: the client actions it opens remember it (it may never decide them).
    """
    with transaction.atomic():
        session = _lock(session_id, create_as)
        if session is None:
            if not missing_ok:
                raise SessionNotFound(session_id)
            yield None
            return
        write = Write(session, by_key)
        yield write
        write.finish()


def _lock(session_id, create_as):
    session = bulk.select_for_update(Session, session_id)
    if session is None and create_as is not None:
        # Concurrent creators both succeed: the second insert is ignored, then both queue on the lock.
        Session.objects.bulk_create([Session(id=session_id, agent=create_as)], ignore_conflicts=True)
        session = bulk.select_for_update(Session, session_id)
    return session


class Write:
    """A change in progress to one locked session."""

    def __init__(self, session, by_key=None):
        self.session = session
        self.by_key = by_key
        self.now = timezone.now()
        session.version += 1
        self.timeline = TimelineWriter(session, session.version)
        self._actions_changed = False
        self._run_status_changed = False
        self._discarded = False
        self._also_saved = []

    # Changes the projections and client actions make --------------------------------------

    def change_entry(self, entry, changes, remove=(), undo=None):
        if undo is not None:
            undo.entry_changing(entry)
        self.timeline.change(entry, changes, remove)

    def set_run_status(self, value, undo=None):
        if self.session.run_status == value:
            return
        if undo is not None:
            undo.run_status_changing(self.session.run_status)
        self.session.run_status = value
        self._run_status_changed = True

    def client_actions_changed(self):
        self._actions_changed = True

    def also_save(self, *fields):
        """Session fields beyond the snapshot's that this write changed (name, metadata, status)."""
        self._also_saved.extend(fields)

    def discard(self):
        """Nothing changed after all (a repeat of what is already so): finish writes nothing."""
        self._discarded = True

    def take_position(self):
        """A position for an entry that no log item placed (a client action or child opened through the API)."""
        self.session.next_position += 1
        return self.session.next_position - 1

    # Finishing -----------------------------------------------------------------------------

    def finish(self):
        if self._discarded:
            return
        session = self.session
        self.timeline.flush()
        if self._actions_changed:
            self._count_waiting_actions()
        session.updated_at = self.now
        bulk.save_fields(session, STATE_FIELDS + self._also_saved)
        if self._run_status_changed and session.parent_id:
            _tell_parent(session)
        # Waits and live pages hear of it once the transaction commits (historyhub.live).
        live.announce(session.pk)

    def _count_waiting_actions(self):
        """The waiting count, and until when the last of them can still be decided (None: one never expires)."""
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

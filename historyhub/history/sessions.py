"""Sessions: ensure, read, update, delete, list, lineage, and the snapshot."""

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Prefetch, Q
from django.utils import timezone

from historyhub import live
from historyhub.history import validation
from historyhub.history.dialects import format_time
from historyhub.history.errors import InvalidInput, SessionConflict, SessionNotFound
from historyhub.history.models import (
    ClientAction,
    ClientActionStatus,
    Item,
    Operation,
    RunStatus,
    Session,
    SessionStatus,
    TimelineEntry,
)
from historyhub.history.projection import Projection, subagent_row, update_parent_of

# What every write of the log and its projections may have changed.
STATE_FIELDS = [
    "next_position",
    "epoch",
    "item_count",
    "history_count",
    "waiting_count",
    "usage_json",
    "last_message",
    "version",
    "run_status",
    "updated_at",
]


def lock(session_id, missing_ok=False):
    session = Session.objects.select_for_update().filter(pk=session_id).first()
    if session is None and not missing_ok:
        raise SessionNotFound(session_id)
    return session


def lock_or_create(session_id, agent):
    """Lock a session, creating it first when it does not exist (concurrent creators both succeed)."""
    Session.objects.bulk_create([Session(id=session_id, agent=agent)], ignore_conflicts=True)
    return lock(session_id)


def save_state(session):
    session.save(update_fields=STATE_FIELDS)
    live.announce(session.id)


def get(session_id):
    session = Session.objects.select_related("parent").filter(pk=session_id).first()
    if session is None:
        raise SessionNotFound(session_id)
    return session


# Writing ---------------------------------------------------------------------


def ensure(*, agent, session_id=None, name=None, metadata=None, parent_session_id=None, parent_call_id=None):
    """Create a session, or return the existing one of the same agent; returns (session, created)."""
    session_id = validation.session_id(session_id) if session_id is not None else validation.new_session_id()
    validation.identifier(agent, "agent")
    metadata = validation.metadata(metadata)
    if name is not None and not isinstance(name, str):
        raise InvalidInput("name must be a string.")
    if name is not None:
        validation.text(name, "name")
    if (parent_session_id is None) != (parent_call_id is None):
        raise InvalidInput("parentSessionId and parentCallId go together.")
    if parent_call_id is not None:
        validation.identifier(parent_call_id, "parentCallId")
        validation.session_id(parent_session_id, "parentSessionId")

    with transaction.atomic():
        parent = lock(parent_session_id) if parent_session_id is not None else None
        session = Session(
            id=session_id,
            agent=agent,
            name=(name or "")[:500],
            parent=parent,
            parent_call_id=parent_call_id or "",
        )
        session.metadata = metadata
        try:
            with transaction.atomic():
                session.save(force_insert=True)
                live.announce(session.id)
        except IntegrityError:
            existing = get(session_id)
            if existing.agent != agent:
                raise SessionConflict(
                    f"Session {session_id!r} already exists with another agent ({existing.agent!r})."
                ) from None
            return existing, False
        if parent is not None:
            now = timezone.now()
            parent.version += 1
            projection = Projection(parent, now)
            projection.add_row(
                f"subagent:{parent_call_id}", "subagent", subagent_row(session), now, parent.next_position
            )
            parent.next_position += 1
            projection.flush()
            if parent.run_status in (None, RunStatus.RUNNING):
                parent.run_status = RunStatus.WAITING_FOR_SUBAGENT
            save_state(parent)
    return session, True


def update(session_id, changes):
    """Apply a PATCH: any of name, metadata, status, runStatus."""
    fields = ["version", "updated_at"]
    with transaction.atomic():
        session = lock(session_id)
        if "name" in changes:
            if not isinstance(changes["name"], str):
                raise InvalidInput("name must be a string.")
            session.name = validation.text(changes["name"], "name")[:500]
            fields.append("name")
        if "metadata" in changes:
            session.metadata = validation.metadata(changes["metadata"])
            fields += ["metadata_json", "metadata_text"]
        if "status" in changes:
            session.status = validation.choice(changes["status"], SessionStatus.values, "status")
            fields.append("status")
        if "runStatus" in changes:
            session.run_status = validation.choice(changes["runStatus"], RunStatus.values, "runStatus", nullable=True)
            fields.append("run_status")
        session.version += 1
        session.save(update_fields=fields)
        live.announce(session.id)
        if "runStatus" in changes and session.parent_id:
            update_parent_of(session, timezone.now())
    return get(session_id)


def delete(session_id):
    """Delete a session and all it owns; the big tables go first, in one statement each."""
    with transaction.atomic():
        session = lock(session_id)
        for model in (Item, TimelineEntry, ClientAction, Operation):
            model.objects.filter(session=session).delete()
        session.delete()
        live.announce(session_id)


# Listing ---------------------------------------------------------------------


def search(*, agent=None, status=None, run_status=None, q=None, waiting=None):
    """Sessions matching the filters of API.md, most recently updated first."""
    sessions = Session.objects.all()
    if agent:
        sessions = sessions.filter(agent=agent)
    if status:
        sessions = sessions.filter(status=validation.choice(status, SessionStatus.values, "status"))
    if run_status:
        sessions = sessions.filter(run_status=validation.choice(run_status, RunStatus.values, "runStatus"))
    if waiting:
        sessions = sessions.filter(waiting_count__gt=0)
    if q:
        mentions = TimelineEntry.objects.filter(session=OuterRef("pk"), type="message", text__icontains=q)
        sessions = sessions.filter(
            Q(id__icontains=q)
            | Q(name__icontains=q)
            | Q(agent__icontains=q)
            | Q(metadata_text__icontains=q)
            | Exists(mentions)
        )
    return sessions.order_by("-updated_at", "id")


def page_of(queryset, page, page_size):
    """One page of a queryset: (rows, total, hasMore)."""
    total = queryset.count()
    start = (page - 1) * page_size
    rows = list(queryset[start : start + page_size]) if start < total else []
    return rows, total, start + len(rows) < total


def with_snapshot_relations(queryset):
    waiting = ClientAction.objects.filter(status=ClientActionStatus.WAITING).order_by("created_at", "pk")
    return queryset.select_related("parent").prefetch_related(
        Prefetch("client_actions", queryset=waiting, to_attr="waiting_actions")
    )


# The snapshot ------------------------------------------------------------------


def snapshot(session):
    """The SessionSnapshot of API.md."""
    waiting = getattr(session, "waiting_actions", None)
    if waiting is None:
        waiting = session.client_actions.filter(status=ClientActionStatus.WAITING).order_by("created_at", "pk")
    data = {
        "sessionId": session.id,
        "agent": session.agent,
        "name": session.name or None,
        "status": session.status,
        "metadata": session.metadata,
        "createdAt": format_time(session.created_at),
        "updatedAt": format_time(session.updated_at),
        "runStatus": session.run_status,
        "pendingClientActions": [
            {"callId": action.call_id, "name": action.name, "arguments": action.arguments} for action in waiting
        ],
        "lineage": None,
        "usage": session.usage,
        "itemCount": session.item_count,
    }
    if session.parent_id:
        data["lineage"] = {
            "origin": "delegated",
            "parentAgent": session.parent.agent,
            "parentSessionId": session.parent_id,
            "parentCallId": session.parent_call_id,
        }
    return data

"""Sessions: ensure, read, update, delete, list, lineage, and the snapshot."""

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db import connections, router
from django.db.models import Prefetch
from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.history import matching, subagents, usage_hours
from historyhub.history.models import (
    ClientAction,
    ClientActionStatus,
    RunStatus,
    Session,
    SessionStatus,
    waiting_at,
    with_run_status,
)
from historyhub.history.writes import writing
from historyhub.lib import session_keys, validation
from historyhub.lib.errors import InvalidInput, SessionConflict, SessionNotFound
from historyhub.lib.session_keys import DEFAULT_PROJECT


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    SESSION_DELETED = "session.deleted"


class Ensured(NamedTuple):
    session: Session
    created: bool


@dataclass
class PendingAction:
    call_id: str
    name: str
    arguments: dict


@dataclass
class Lineage:
    parent_agent: str
    parent_session_id: str
    parent_call_id: str
    origin: str = "delegated"


@dataclass
class Snapshot:
    """A session as readers see it at one moment (an expired client action no longer waits)."""

    session_id: str
    agent: str
    name: str | None
    status: str
    metadata: dict
    created_at: datetime
    updated_at: datetime
    run_status: str | None
    pending_client_actions: list
    lineage: Lineage | None
    usage: dict | None
    item_count: int


def get(key):
    session = Session.objects.select_related("parent").filter(pk=key).first()
    if session is None:
        raise SessionNotFound(key)
    return session


# Writing -------------------------------------------------------------------------------


def ensure(
    *,
    agent,
    project=DEFAULT_PROJECT,
    session_id=None,
    name=None,
    metadata=None,
    parent_session_id=None,
    parent_call_id=None,
):
    """Create a session of ``project`` (its id), or return the existing one of the same agent; ids (the session's
    and its parent's) are the ones the project knows them by."""
    session_id = validation.session_id(session_id) if session_id is not None else validation.new_session_id()
    validation.identifier(agent, "agent")
    metadata = validation.metadata(metadata)
    if name is not None:
        validation.name(name)
    if (parent_session_id is None) != (parent_call_id is None):
        raise InvalidInput("parentSessionId and parentCallId go together.")
    if parent_call_id is not None:
        validation.identifier(parent_call_id, "parentCallId")
        validation.session_id(parent_session_id, "parentSessionId")

    session = Session.new(
        session_keys.session_key(project, session_id), agent=agent, name=name or "", parent_call_id=parent_call_id or ""
    )
    session.metadata = metadata
    if parent_session_id is None:
        return _create(session)
    # The parent first, then the child: every write that takes both locks takes them in this order.
    with writing(session_keys.session_key(project, parent_session_id)) as parent:
        session.parent = parent.session
        ensured = _create(session)
        if ensured.created:
            subagents.child_opened(parent, ensured.session)
        else:
            parent.discard()
    return ensured


def _create(session):
    """The session as ``session`` describes it, or the existing one of the same agent."""
    with writing(session.id, create=session) as write:
        if not write.created:
            write.discard()
    if not write.created and write.session.agent != session.agent:
        agent = write.session.agent
        raise SessionConflict(f"Session {session.session_id!r} already exists with another agent ({agent!r}).")
    return Ensured(get(session.id), write.created)


UNCHANGED = object()


def update(key, *, name=UNCHANGED, metadata=UNCHANGED, status=UNCHANGED, run_status=UNCHANGED):
    """Change the fields given; the others stay."""
    with writing(key) as write:
        session = write.session
        if name is not UNCHANGED:
            session.name = validation.name(name)
            write.also_save("name")
        if metadata is not UNCHANGED:
            before = session.metadata_json
            session.metadata = validation.metadata(metadata)
            write.also_save("metadata_json", "metadata_text")
            # Its items that name no model count their tokens under the session's.
            write.count_usage(usage_hours.model_changed(session, before))
        if status is not UNCHANGED:
            session.status = validation.choice(status, SessionStatus.values, "status")
            write.also_save("status")
        if run_status is not UNCHANGED:
            write.set_run_status(validation.choice(run_status, RunStatus.values, "runStatus", nullable=True))
    return get(key)


def delete(key, *, actor):
    """Delete a session and all it owns, recorded in the audit log as ``actor``'s; whoever waits on it learns it is
    gone."""
    with writing(key) as write:
        deleted = write.delete_session()
        project, session_id = session_keys.split(key)
        audit_log.record(project, actor, Audited.SESSION_DELETED, session_id, sessionsDeleted=len(deleted))


# Listing -------------------------------------------------------------------------------


def search(project, *, agent=None, status=None, run_status=None, q=None, waiting=None, now=None, first=None):
    """Sessions of ``project`` (its id) matching the filters, most recently updated first; runStatus as readers see
    it at ``now``.

    ``q`` matches ids, names, agents, metadata values and message text (historyhub.history.matching).
    With ``first``, only the first ``first`` sessions are sure to be right: enough for a page and the
    pages before it, and a search by ``q`` reads no further.
    """
    filters = {"agent": agent, "status": status, "run_status": run_status, "waiting": waiting}
    return _found(project, q=q, now=now, first=first, ordered=True, **filters).order_by(*matching.ORDER)


def count(project, *, agent=None, status=None, run_status=None, q=None, waiting=None, now=None, up_to=None):
    """How many sessions ``search`` finds with these filters, counting at most ``up_to`` (None: all of them)."""
    filters = {"agent": agent, "status": status, "run_status": run_status, "waiting": waiting}
    found = _found(project, q=q, now=now, first=up_to, ordered=False, **filters).order_by()
    return found.count() if up_to is None else found[:up_to].count()


def _found(project, *, agent, status, run_status, q, waiting, now, first, ordered):
    now = now or timezone.now()
    sessions = Session.objects.filter(project=project)
    if agent:
        sessions = sessions.filter(agent=agent)
    if status:
        sessions = sessions.filter(status=validation.choice(status, SessionStatus.values, "status"))
    if run_status:
        sessions = sessions.filter(with_run_status(validation.choice(run_status, RunStatus.values, "runStatus"), now))
    if waiting:
        sessions = sessions.filter(waiting_at(now))
    if q:
        sessions = matching.sessions_matching(sessions, q, first, ordered)
    return sessions


def agents(project):
    """Every agent that has a session in ``project``, in order: one index probe per agent, not a pass over every
    session."""
    # Where the ORM would read sessions (a list page may read a replica: historyhub.databases).
    reading = connections[router.db_for_read(Session)]
    table = reading.ops.quote_name(Session._meta.db_table)
    with reading.cursor() as cursor:
        cursor.execute(
            f"""
            WITH RECURSIVE agents (agent) AS (
                SELECT MIN(agent) FROM {table} WHERE project_id = %s
                UNION ALL
                SELECT (SELECT MIN(agent) FROM {table} WHERE project_id = %s AND agent > agents.agent) FROM agents
                WHERE agents.agent IS NOT NULL
            )
            SELECT agent FROM agents WHERE agent IS NOT NULL
            """,
            [project, project],
        )
        return [agent for (agent,) in cursor.fetchall()]


def with_snapshot_relations(queryset):
    waiting = ClientAction.objects.filter(status=ClientActionStatus.WAITING).order_by("created_at", "pk")
    return queryset.select_related("parent").prefetch_related(
        Prefetch("client_actions", queryset=waiting, to_attr="waiting_actions")
    )


# The snapshot --------------------------------------------------------------------------


def pending_actions(session, now):
    """The client actions that wait for a decision at ``now``, oldest first."""
    waiting = getattr(session, "waiting_actions", None)
    if waiting is None:
        if not session.waiting_count:
            return []
        waiting = session.client_actions.filter(status=ClientActionStatus.WAITING).order_by("created_at", "pk")
    return [action for action in waiting if action.status_at(now) == ClientActionStatus.WAITING]


def snapshot(session, now=None):
    """The session's Snapshot at ``now``."""
    now = now or timezone.now()
    return Snapshot(**snapshot_fields(session, now))


def snapshot_fields(session, now):
    lineage = None
    if session.parent_id:
        lineage = Lineage(session.parent.agent, session.parent.session_id, session.parent_call_id)
    return {
        "session_id": session.session_id,
        "agent": session.agent,
        "name": session.name or None,
        "status": session.status,
        "metadata": session.metadata,
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        "run_status": session.run_status_at(now),
        "pending_client_actions": [
            PendingAction(action.call_id, action.name, action.arguments) for action in pending_actions(session, now)
        ],
        "lineage": lineage,
        "usage": session.usage,
        "item_count": session.item_count,
    }

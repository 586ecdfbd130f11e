"""Export: a project's sessions as JSON Lines, one session a line, in constant memory (docs/data.md, "Export").

A line is ``{"session": SessionSnapshot, "items": [{"position", "epoch", "item"}], "clientActions": [...],
"runs": [...]}``. Sessions are read SESSION_CHUNK at a time in creation order (a parent before its children, so
an import meets the parent first), and a session's items ITEM_CHUNK at a time, their stored texts written out
verbatim: a session of 250,000 items never sits in memory whole, its line is sent in pieces.
"""

from django.db.models import Q
from django.utils import timezone

from historyhub.approvals.schemas import ClientActionOut
from historyhub.audit import log as audit_log
from historyhub.data.tallies import Tally
from historyhub.history import sessions
from historyhub.history.dialects.base import parse_timestamp
from historyhub.history.models import ClientAction, Item, Session
from historyhub.history.schemas import SessionSnapshot
from historyhub.lib import jsonvalues, validation
from historyhub.lib.errors import InvalidInput
from historyhub.runs import parking
from historyhub.runs.models import Run
from historyhub.runs.schemas import RunOut

SESSION_CHUNK = 100
ITEM_CHUNK = 1000
# Large enough that a long history is not written an item at a time.
PIECE = 64 * 1024


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    EXPORT = "export"


def audited(project, actor, query, tally=None, **details):
    """What every export sends (the API, the dashboard's data page, ``manage.py export``): the lines of the sessions
    ``query`` (an ExportQuery, the API's filters) selects, its ``export`` audit row written first with the filters
    and ``details``. A bad filter raises InvalidInput before anything is recorded or sent."""
    chosen = selected(project, agent=query.agent, updated_since=query.updatedSince, session_id=query.sessionId)
    audit_log.record(project, actor, Audited.EXPORT, **query.filters(), **details)
    return lines(chosen, tally)


def selected(project, *, agent=None, updated_since=None, session_id=None):
    """The project's sessions the filters select, in creation order."""
    chosen = Session.objects.filter(project=project)
    # Every filter is checked here, before the stream starts: a bad one afterwards could only cut it short.
    if agent:
        chosen = chosen.filter(agent=validation.identifier(agent, "agent"))
    if updated_since is not None:
        # The rule of every time the API takes (a dialect's timestamps, expiresAt): ISO 8601 with a zone.
        updated_since = parse_timestamp(updated_since) if isinstance(updated_since, str) else updated_since
        if updated_since is None or timezone.is_naive(updated_since):
            raise InvalidInput("updatedSince must be an ISO 8601 time with a time zone, e.g. 2026-09-28T12:00:00Z.")
        chosen = chosen.filter(updated_at__gte=updated_since)
    if session_id:
        chosen = chosen.filter(session_id=validation.session_id(session_id))
    return chosen.order_by("created_at", "pk")


def lines(chosen, tally=None):
    """The export of the sessions of ``chosen`` as text pieces of about PIECE characters; lines end in "\\n".
    ``tally`` (a Tally) counts the sessions, items and client actions as they are written."""
    now = timezone.now()
    tally = tally if tally is not None else Tally()
    after = None
    while True:
        chunk = chosen
        if after is not None:
            chunk = chosen.filter(Q(created_at__gt=after[0]) | Q(created_at=after[0], pk__gt=after[1]))
        batch = list(sessions.with_snapshot_relations(chunk)[:SESSION_CHUNK])
        if not batch:
            return
        for session in batch:
            yield from _session_line(session, now, tally)
        after = (batch[-1].created_at, batch[-1].pk)


def _session_line(session, now, tally):
    snapshot = SessionSnapshot.model_validate(sessions.snapshot(session, now)).model_dump(mode="json")
    piece, size = ['{"session":', _json(snapshot), ',"items":['], 0
    first = True
    for position, epoch, data in _items(session):
        piece.append(f'{"" if first else ","}{{"position":{position},"epoch":{epoch},"item":{data}}}')
        first = False
        tally.items += 1
        size += len(data)
        if size >= PIECE:
            yield "".join(piece)
            piece, size = [], 0
    actions = list(ClientAction.objects.filter(session=session).order_by("created_at", "pk"))
    runs = parking.with_readiness(Run.objects.filter(session=session).order_by("created_at", "pk"), now)
    piece.append('],"clientActions":')
    piece.append(_json([ClientActionOut.model_validate(action).model_dump(mode="json") for action in actions]))
    piece.append(',"runs":')
    piece.append(_json([RunOut.model_validate(run).model_dump(mode="json") for run in runs]))
    piece.append("}\n")
    tally.sessions += 1
    tally.client_actions += len(actions)
    yield "".join(piece)


def _items(session):
    """(position, epoch, stored text) of every item of the log, archived epochs included, in position order."""
    after = 0
    while True:
        rows = list(
            Item.objects.filter(session=session, position__gt=after)
            .order_by("position")
            .values_list("position", "epoch", "data")[:ITEM_CHUNK]
        )
        yield from rows
        if len(rows) < ITEM_CHUNK:
            return
        after = rows[-1][0]


def _json(value):
    return jsonvalues.dumps(value)

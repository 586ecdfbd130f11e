"""Import: the lines of an export recreated in a project, as they were (docs/data.md, "Import").

Sessions, their whole log (positions and epochs), client actions and parked runs keep their ids, times and
states, so an export of them equals the lines imported. The timeline is not part of an export: the log and the
actions go through the write path again (``historyhub.history.replay``), which projects the timeline, the cards,
the counters and the search rows as it did for the original. An import is one transaction: a line whose session
id the project holds already, or any line that is not valid, and nothing of it is imported.
"""

from django.conf import settings
from django.db import transaction
from django.utils.dateparse import parse_datetime

from historyhub.approvals.decisions import DEFAULT_ALLOWED, SENT, Decision
from historyhub.approvals.models import Via, Vote
from historyhub.history import jsonvalues, validation
from historyhub.history.errors import InvalidInput, SessionConflict
from historyhub.history.models import ClientAction, ClientActionStatus, RunStatus, Session, SessionStatus
from historyhub.history.replay import LoggedItem, replay
from historyhub.projects import keys
from historyhub.runs.models import Run

# The levels a line adds around the values it carries: {session: {metadata: …}}, {items: [{item: …}]}.
LINE_ENVELOPE = 3


def import_lines(project, lines, *, on_done=None):
    """Import ``lines`` (an iterable of text lines) into ``project`` in one transaction; returns how many sessions
    were imported. ``on_done`` is called inside the transaction with that count (the audit row)."""
    imported = 0
    with transaction.atomic():
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                line = jsonvalues.loads_untrusted(text, envelope=LINE_ENVELOPE)
            except ValueError as error:
                raise InvalidInput(f"line {number} is not JSON: it {error}.") from None
            try:
                _import_session(project, line)
            except InvalidInput as error:
                raise InvalidInput(f"line {number}: {error.message}") from None
            imported += 1
        if on_done is not None:
            on_done(imported)
    return imported


def _import_session(project, line):
    if not isinstance(line, dict) or set(line) != {"session", "items", "clientActions", "runs"}:
        raise InvalidInput("a line must be an object with exactly session, items, clientActions and runs.")
    snapshot = _object(line["session"], "session")
    session_id = validation.session_id(snapshot.get("sessionId"), "session.sessionId")
    key = keys.session_key(project, session_id)
    if Session.objects.filter(pk=key).exists():
        raise SessionConflict(f"Session {session_id!r} exists already in this project: nothing was imported.")
    session = Session.new(
        key,
        agent=validation.identifier(snapshot.get("agent"), "session.agent"),
        name=validation.text(snapshot.get("name") or "", "session.name")[:500],
        status=validation.choice(snapshot.get("status"), SessionStatus.values, "session.status"),
    )
    run_status = validation.choice(snapshot.get("runStatus"), RunStatus.values, "session.runStatus", nullable=True)
    session.metadata = validation.metadata(snapshot.get("metadata"))
    lineage = snapshot.get("lineage")
    if lineage is not None:
        lineage = _object(lineage, "session.lineage")
        parent = keys.session_key(project, validation.session_id(lineage.get("parentSessionId"), "lineage"))
        if not Session.objects.filter(pk=parent).exists():
            raise InvalidInput("session.lineage names a parent that is neither in the project nor on an earlier line.")
        session.parent_id, session.parent_call_id = (
            parent,
            validation.text(lineage.get("parentCallId") or "", "lineage"),
        )
    created_at, updated_at = _time(snapshot, "createdAt"), _time(snapshot, "updatedAt")
    items = _items(line["items"])
    exported_actions = _client_actions(line["clientActions"])
    # Usage and itemCount are what the log says: the replay sums and counts them again.
    actions = replay(session, items, exported_actions, since=created_at, run_status=run_status)
    Vote.objects.bulk_create(vote for action in exported_actions for vote in _bound(action, actions[action.call_id]))
    _runs(session, line["runs"], actions)
    # The writes set both times to now: they are put back as exported.
    Session.objects.filter(pk=key).update(created_at=created_at, updated_at=updated_at)


def _items(values):
    """[LoggedItem], positions rising, epochs never falling."""
    if not isinstance(values, list):
        raise InvalidInput("items must be an array.")
    rows, last = [], (0, 0)
    for index, entry in enumerate(values):
        entry = _object(entry, f"items[{index}]")
        position, epoch = entry.get("position"), entry.get("epoch")
        if not _whole(position) or not _whole(epoch) or position <= last[0] or epoch < last[1]:
            raise InvalidInput(f"items[{index}] needs a position above the one before and an epoch not below it.")
        rows.append((position, epoch, entry.get("item")))
        last = (position, epoch)
    limit = settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST
    checked = []
    for start in range(0, len(rows), limit):
        checked.extend(validation.items([item for _, _, item in rows[start : start + limit]]))
    return [
        LoggedItem(position, epoch, item, text)
        for (position, epoch, _), (item, text) in zip(rows, checked, strict=True)
    ]


def _client_actions(values):
    """The exported actions as unsaved rows, oldest first, each with its votes (``imported_votes``)."""
    if not isinstance(values, list):
        raise InvalidInput("clientActions must be an array.")
    actions = {}
    for index, value in enumerate(values):
        value = _object(value, f"clientActions[{index}]")
        field = f"clientActions[{index}]"
        call_id = validation.identifier(value.get("callId"), f"{field}.callId")
        if call_id in actions:
            raise InvalidInput(f"{field}.callId {call_id!r} is there twice.")
        arguments = value.get("arguments")
        if not isinstance(arguments, dict):
            raise InvalidInput(f"{field}.arguments must be an object.")
        approved = value.get("approvedArguments")
        action = ClientAction(
            call_id=call_id,
            name=validation.action_name(value.get("name"), f"{field}.name"),
            arguments_json=jsonvalues.dumps(validation.json_value(arguments, f"{field}.arguments")),
            description=validation.text(value.get("description") or "", f"{field}.description"),
            status=validation.choice(value.get("status"), ClientActionStatus.values, f"{field}.status"),
            created_at=_time(value, "createdAt"),
            expires_at=_time(value, "expiresAt", nullable=True),
            resolved_at=_time(value, "resolvedAt", nullable=True),
            resolved_by=validation.text(value.get("resolvedBy") or "", f"{field}.resolvedBy")[:200],
            decision=validation.choice(value.get("decision") or "", ["", *SENT], f"{field}.decision"),
            comment=validation.text(value.get("comment") or "", f"{field}.comment"),
            approved_arguments_json=None if approved is None else jsonvalues.dumps(approved),
            allowed_responses=",".join(_allowed(value.get("allowedResponses"), field)),
            response_schema_json=_json_or_none(value.get("responseSchema")),
            response_json=_json_or_none(value.get("response")),
            # The policy as exported (who decides, how many); its escalation timing is not part of an export,
            # so an imported action that still waits is not escalated (docs/data.md).
            policy_json=_json_or_none(value.get("policy")),
            escalated_at=_time(value, "escalatedAt", nullable=True),
            output_json=None if value.get("output") is None else jsonvalues.dumps(value.get("output")),
            is_error=value.get("isError") if isinstance(value.get("isError"), bool) else None,
        )
        action.imported_votes = _votes(value.get("votes") or [], field)
        actions[call_id] = action
    return list(actions.values())


def _allowed(value, field):
    if value is None:
        return [str(decision) for decision in DEFAULT_ALLOWED]
    if not isinstance(value, list) or not value:
        raise InvalidInput(f"{field}.allowedResponses must be a non-empty array.")
    return [validation.choice(name, Decision.values, f"{field}.allowedResponses") for name in value]


def _json_or_none(value):
    return None if value is None else jsonvalues.dumps(value)


def _votes(values, field):
    """The action's votes as exported: who (by name; the people and keys of another installation are not this
    one's), what, for which arguments, when."""
    if not isinstance(values, list):
        raise InvalidInput(f"{field}.votes must be an array.")
    votes = []
    for index, value in enumerate(values):
        value = _object(value, f"{field}.votes[{index}]")
        arguments = value.get("arguments")
        votes.append(
            Vote(
                by=validation.text(value.get("by") or "", f"{field}.votes[{index}].by")[:200],
                # An export made before votes said their channel: the dashboard's.
                via=validation.choice(value.get("via", Via.DASHBOARD), Via.values, f"{field}.votes[{index}].via"),
                decision=validation.choice(value.get("decision"), SENT, f"{field}.votes[{index}].decision"),
                arguments_json=None if arguments is None else jsonvalues.dumps(arguments),
                comment=validation.text(value.get("comment") or "", f"{field}.votes[{index}].comment"),
                at=_time(value, "at"),
            )
        )
    return votes


def _bound(exported, saved):
    for vote in exported.imported_votes:
        vote.action = saved
        yield vote


def _runs(session, values, actions):
    if not isinstance(values, list):
        raise InvalidInput("runs must be an array.")
    for index, value in enumerate(values):
        value = _object(value, f"runs[{index}]")
        field = f"runs[{index}]"
        call_ids = value.get("callIds")
        if not isinstance(call_ids, list) or not all(call_id in actions for call_id in call_ids):
            raise InvalidInput(f"{field}.callIds must name client actions of the same line.")
        state = value.get("state")
        if not isinstance(state, str) or not state:
            raise InvalidInput(f"{field}.state must be a non-empty string.")
        run = Run.objects.create(
            session=session,
            run_id=validation.identifier(value.get("runId"), f"{field}.runId"),
            agent=validation.identifier(value.get("agent"), f"{field}.agent"),
            state=validation.text(state, f"{field}.state"),
            claimed_until=_time(value, "claimedUntil", nullable=True),
            claimed_by=validation.text(value.get("claimedBy") or "", f"{field}.claimedBy")[:200],
        )
        run.awaiting.set([actions[call_id] for call_id in call_ids])
        Run.objects.filter(pk=run.pk).update(created_at=_time(value, "createdAt"), updated_at=_time(value, "updatedAt"))


def _object(value, field):
    if not isinstance(value, dict):
        raise InvalidInput(f"{field} must be an object.")
    return value


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _time(value, name, nullable=False):
    text = value.get(name)
    if text is None and nullable:
        return None
    moment = parse_datetime(text) if isinstance(text, str) else None
    if moment is None or moment.tzinfo is None:
        raise InvalidInput(f"{name} must be a time with a time zone, as exported.")
    return moment

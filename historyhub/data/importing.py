"""Import: the lines of an export recreated in a project, as they were (docs/data.md, "Import").

Sessions, their whole log (positions and epochs), client actions and parked runs keep their ids, times and
states, so an export of them equals the lines imported (but for the ``imported`` mark of resolved actions). The
timeline is not part of an export: the log and the actions go through the write path again
(``historyhub.history.replay``), which projects the timeline, the cards, the counters and the search rows as it
did for the original. An import is one transaction: a line whose session id the project holds already, or any
value of any line outside the API's rules, and nothing of it is imported.

An import never decides. An action the line says was resolved keeps its record as exported, marked ``imported``,
and is never decided here; one still waiting waits for this project's deciders under this project's policies,
opened by the importing key, and the votes the line holds for it are not kept: a vote needs a decider of this
installation.
"""

from django.conf import settings
from django.db import transaction
from django.utils.dateparse import parse_datetime

from historyhub.approvals.decisions import DEFAULT_ALLOWED, OUTCOME, SENT, Decision
from historyhub.approvals.models import Via, Vote
from historyhub.audit import log as audit_log
from historyhub.data.tallies import Tally
from historyhub.history import response_schemas, usage_hours
from historyhub.history.models import ClientAction, ClientActionStatus, RunStatus, Session, SessionStatus
from historyhub.history.replay import LoggedItem, replay
from historyhub.lib import jsonvalues, session_keys, validation
from historyhub.lib.errors import InvalidInput, PayloadTooLarge, SessionConflict
from historyhub.runs.models import Run

# The levels a line adds around the values it carries: {session: {metadata: …}}, {items: [{item: …}]}.
LINE_ENVELOPE = 3
# Positions the log's column holds, with room to go on; an epoch's number fits its column too.
MAX_POSITION = 2**62
MAX_EPOCH = 2**31 - 1
# What a waiting action cannot carry: it has not ended.
OUTCOME_VALUES = (
    "resolvedAt",
    "resolvedBy",
    "decision",
    "approvedArguments",
    "response",
    "output",
    "isError",
    "executedAt",
)


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    IMPORT = "import"


def import_lines(project, lines, *, actor, by_key=None, tally=None):
    """Import ``lines`` (an iterable of text lines) into ``project`` in one transaction; returns how many sessions
    were imported. ``actor`` is who the ``import`` audit row names; ``by_key`` the importing API key (None: an
    operator or a person on the dashboard), the opener of the actions that still wait."""
    tally = tally if tally is not None else Tally()
    for _ in importing(project, lines, actor=actor, by_key=by_key, tally=tally):
        pass
    return tally.sessions


def importing(project, lines, *, actor, by_key=None, tally):
    """The import of ``import_lines`` as a generator, for callers that show progress: ``tally`` (a Tally) after each
    session line, counted so far. The transaction stays open between them and commits, with its ``import`` audit
    row, when the generator ends; a refused line raises there and closing the generator early rolls back: either
    way nothing of it is imported."""
    # Insights' tallies of everything imported are upserted once, at the end (``usage_hours.deferred``).
    with transaction.atomic(), usage_hours.deferred():
        for number, text in enumerate(lines, 1):
            tally.lines = number
            if not text.strip():
                continue
            try:
                line = jsonvalues.loads_untrusted(text, envelope=LINE_ENVELOPE)
            except ValueError as error:
                raise InvalidInput(f"line {number} is not JSON: it {error}.") from None
            try:
                _import_session(project, line, by_key, tally)
            except (InvalidInput, PayloadTooLarge) as error:
                # A value beyond a size limit is a bad value of its line here, as any other.
                raise InvalidInput(f"line {number}: {error.message}") from None
            yield tally
        audit_log.record(project, actor, Audited.IMPORT, sessionsImported=tally.sessions)


def refused(message):
    """A refusal as a person reads it: what was wrong, and that nothing of the file was imported."""
    return message if "nothing was imported" in message.lower() else f"{message} Nothing was imported."


def _import_session(project, line, by_key, tally):
    if not isinstance(line, dict) or set(line) != {"session", "items", "clientActions", "runs"}:
        raise InvalidInput("a line must be an object with exactly session, items, clientActions and runs.")
    snapshot = _object(line["session"], "session")
    session_id = validation.session_id(snapshot.get("sessionId"), "session.sessionId")
    key = session_keys.session_key(project, session_id)
    if Session.objects.filter(pk=key).exists():
        raise SessionConflict(f"Session {session_id!r} exists already in this project: nothing was imported.")
    session = Session.new(
        key,
        agent=validation.identifier(snapshot.get("agent"), "session.agent"),
        name=validation.name(snapshot.get("name") or "", "session.name"),
        status=validation.choice(snapshot.get("status"), SessionStatus.values, "session.status"),
    )
    run_status = validation.choice(snapshot.get("runStatus"), RunStatus.values, "session.runStatus", nullable=True)
    session.metadata = validation.metadata(snapshot.get("metadata"))
    lineage = snapshot.get("lineage")
    if lineage is not None:
        lineage = _object(lineage, "session.lineage")
        parent = session_keys.session_key(project, validation.session_id(lineage.get("parentSessionId"), "lineage"))
        if not Session.objects.filter(pk=parent).exists():
            raise InvalidInput("session.lineage names a parent that is neither in the project nor on an earlier line.")
        parent_call_id = lineage.get("parentCallId") or ""
        session.parent_id, session.parent_call_id = (
            parent,
            validation.identifier(parent_call_id, "lineage.parentCallId") if parent_call_id else "",
        )
    created_at, updated_at = _time(snapshot, "createdAt"), _time(snapshot, "updatedAt")
    items = _items(line["items"])
    exported_actions = _client_actions(line["clientActions"])
    # Usage and itemCount are what the log says: the replay sums and counts them again.
    actions = replay(session, items, exported_actions, since=created_at, run_status=run_status, by_key=by_key)
    # The votes of a resolved action are its record; a waiting action's are not kept (no decider of ours cast them).
    resolved = [action for action in exported_actions if action.status != ClientActionStatus.WAITING]
    votes = Vote.objects.bulk_create(vote for action in resolved for vote in _bound(action, actions[action.call_id]))
    runs = _runs(session, line["runs"], actions)
    # The writes set both times to now: they are put back as exported, and the session counts in the hour it was
    # created (Insights' tallies, history.usage_hours).
    written = Session.objects.get(pk=key)
    moved = usage_hours.tallies()
    usage_hours.count_opened(moved, written, [written.created_at], sign=-1, index=usage_hours.SESSIONS)
    usage_hours.count_opened(moved, written, [created_at], index=usage_hours.SESSIONS)
    usage_hours.add(moved)
    Session.objects.filter(pk=key).update(created_at=created_at, updated_at=updated_at)
    tally.sessions += 1
    tally.items += len(items)
    tally.client_actions += len(exported_actions)
    tally.resolved += len(resolved)
    tally.waiting += len(exported_actions) - len(resolved)
    tally.votes += len(votes)
    tally.votes_not_kept += sum(len(action.imported_votes) for action in exported_actions) - len(votes)
    tally.runs += runs


def _items(values):
    """[LoggedItem], positions rising, epochs never falling and never rising by more than the positions did: each
    compaction stores at least one item, so the replay starts no more epochs than the log took positions."""
    if not isinstance(values, list):
        raise InvalidInput("items must be an array.")
    rows, last = [], (0, 0)
    for index, entry in enumerate(values):
        entry = _object(entry, f"items[{index}]")
        position, epoch = entry.get("position"), entry.get("epoch")
        if (
            not _whole(position, MAX_POSITION)
            or not _whole(epoch, MAX_EPOCH)
            or position <= last[0]
            or not 0 <= epoch - last[1] <= position - last[0]
        ):
            raise InvalidInput(
                f"items[{index}] needs a position above the one before, and an epoch not below it that rose by no "
                "more than the position did."
            )
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
    """The exported actions as unsaved rows, oldest first, each with its votes (``imported_votes``), every value
    held to the rules the API holds it to."""
    if not isinstance(values, list):
        raise InvalidInput("clientActions must be an array.")
    actions = {}
    for index, value in enumerate(values):
        field = f"clientActions[{index}]"
        value = _object(value, field)
        call_id = validation.identifier(value.get("callId"), f"{field}.callId")
        if call_id in actions:
            raise InvalidInput(f"{field}.callId {call_id!r} is there twice.")
        status = validation.choice(value.get("status"), ClientActionStatus.values, f"{field}.status")
        waiting = status == ClientActionStatus.WAITING
        if waiting:
            carried = [name for name in OUTCOME_VALUES if value.get(name) is not None]
            if carried:
                raise InvalidInput(f"{field} is waiting and cannot carry {', '.join(carried)}.")
        arguments = value.get("arguments")
        if not isinstance(arguments, dict):
            raise InvalidInput(f"{field}.arguments must be an object.")
        response_schema = _action_value(value.get("responseSchema"), f"{field}.responseSchema", must_be_object=True)
        if response_schema is not None:
            response_schemas.check_schema(response_schema)
        decision = validation.choice(value.get("decision") or "", ["", *SENT], f"{field}.decision")
        if decision and OUTCOME[decision] != status:
            raise InvalidInput(f"{field}.decision {decision!r} does not end an action as {status!r}.")
        is_error = value.get("isError")
        if is_error is not None and not isinstance(is_error, bool):
            raise InvalidInput(f"{field}.isError must be true, false or null.")
        reported = value.get("reported", False)
        if not isinstance(reported, bool):
            raise InvalidInput(f"{field}.reported must be true or false.")
        action = ClientAction(
            call_id=call_id,
            name=validation.action_name(value.get("name"), f"{field}.name"),
            arguments_json=jsonvalues.dumps(_action_value(arguments, f"{field}.arguments")),
            description=_action_text(value.get("description"), f"{field}.description"),
            status=status,
            created_at=_time(value, "createdAt"),
            expires_at=_time(value, "expiresAt", nullable=True),
            resolved_at=_time(value, "resolvedAt", nullable=True),
            resolved_by=_by(value.get("resolvedBy"), f"{field}.resolvedBy"),
            decision=decision,
            comment=_action_text(value.get("comment"), f"{field}.comment"),
            approved_arguments_json=_json_or_none(
                _action_value(value.get("approvedArguments"), f"{field}.approvedArguments", must_be_object=True)
            ),
            allowed_responses=",".join(_allowed(value.get("allowedResponses"), field)),
            response_schema_json=_json_or_none(response_schema),
            response_json=_json_or_none(_action_value(value.get("response"), f"{field}.response")),
            # The policy as exported (who decided, how many) is the record of a resolved action; a waiting one is
            # governed by this project's policies instead (``replay``), and the line's policy is ignored.
            policy_json=None if waiting else _json_or_none(_policy(value.get("policy"), f"{field}.policy")),
            escalated_at=None if waiting else _time(value, "escalatedAt", nullable=True),
            executed_at=None if waiting else _time(value, "executedAt", nullable=True),
            output_json=_json_or_none(_json(value.get("output"), f"{field}.output")),
            is_error=is_error,
            reported=reported and not waiting,
        )
        action.imported_votes = _votes(value.get("votes") or [], field)
        actions[call_id] = action
    return list(actions.values())


def _action_value(value, field, must_be_object=False):
    """A JSON value of a client action (arguments, a response …), under the API's intake rules and size limit."""
    if value is None:
        return None
    if must_be_object and not isinstance(value, dict):
        raise InvalidInput(f"{field} must be an object or null.")
    return validation.within_action_limit(validation.json_value(value, field), field)


def _action_text(value, field):
    return validation.within_action_limit(validation.text(value or "", field), field)


def _json(value, field):
    return None if value is None else validation.json_value(value, field)


def _by(value, field):
    """Who resolved or voted, as the export names them: at most 200 characters, never cut."""
    if not value:
        return ""
    return validation.identifier(value, field)


def _policy(value, field):
    """A resolved action's policy as exported: {name, requiredApprovals, approverGroups, peopleOnly}."""
    if value is None:
        return None
    value = _object(value, field)
    required = value.get("requiredApprovals")
    groups = value.get("approverGroups")
    if (
        not _whole(required, 5)
        or required < 1
        or not isinstance(groups, list)
        or not isinstance(value.get("peopleOnly"), bool)
    ):
        raise InvalidInput(f"{field} must be {{name, requiredApprovals: 1-5, approverGroups, peopleOnly}} or null.")
    return {
        "name": validation.identifier(value.get("name"), f"{field}.name"),
        "requiredApprovals": required,
        "approverGroups": [validation.identifier(group, f"{field}.approverGroups") for group in groups],
        "peopleOnly": value["peopleOnly"],
        "escalateTo": [],
        "escalateAfterSeconds": None,
    }


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
    votes, voters = [], set()
    for index, value in enumerate(values):
        at = f"{field}.votes[{index}]"
        value = _object(value, at)
        by = validation.identifier(value.get("by"), f"{at}.by")
        if by in voters:
            raise InvalidInput(f"{at}.by {by!r} voted twice: a decider votes once.")
        voters.add(by)
        arguments = _action_value(value.get("arguments"), f"{at}.arguments", must_be_object=True)
        votes.append(
            Vote(
                by=by,
                # An export made before votes said their channel: the dashboard's.
                via=validation.choice(value.get("via", Via.DASHBOARD), Via.values, f"{at}.via"),
                decision=validation.choice(value.get("decision"), SENT, f"{at}.decision"),
                arguments_json=_json_or_none(arguments),
                comment=_action_text(value.get("comment"), f"{at}.comment"),
                at=_time(value, "at"),
            )
        )
    return votes


def _bound(exported, saved):
    for vote in exported.imported_votes:
        vote.action = saved
        yield vote


def _runs(session, values, actions):
    """Recreate the line's parked runs; how many."""
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
            claimed_by=_by(value.get("claimedBy"), f"{field}.claimedBy"),
        )
        run.awaiting.set([actions[call_id] for call_id in call_ids])
        Run.objects.filter(pk=run.pk).update(created_at=_time(value, "createdAt"), updated_at=_time(value, "updatedAt"))
    return len(values)


def _object(value, field):
    if not isinstance(value, dict):
        raise InvalidInput(f"{field} must be an object.")
    return value


def _whole(value, most):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= most


def _time(value, name, nullable=False):
    text = value.get(name)
    if text is None and nullable:
        return None
    moment = parse_datetime(text) if isinstance(text, str) else None
    if moment is None or moment.tzinfo is None:
        raise InvalidInput(f"{name} must be a time with a time zone, as exported.")
    return moment

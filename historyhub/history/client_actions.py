"""Client actions: open, supply a result, decide, expire (docs/api.md, "Client actions").

The API's result and decision endpoints, the dashboard's Approve and Reject
buttons and the admin's actions all resolve through ``resolve`` here (a
decision through ``approvals.deciding.decide``, which brings the rules of who
may decide and how votes count as a ``Ruling``); log items
that open an action (hosted MCP approvals, Orcha client actions) go through
``open_in`` inside their write, and items that report how one ended (an
``mcp_approval_response``, an Orcha ``client_action`` with another status, a
tool output) through ``report_in``, which settles only what the contract lets
an agent's report settle (docs/dialects.md, "What an agent's items may decide").
``resolve_in`` is the one function that moves an action out of ``waiting``;
decisions, results, expiry, reports and imports reach it only through the
functions here.

An action shows on one timeline card: a ``client_action`` entry of its own, or,
when the call it guards is already on the timeline (an Agents SDK tool that
needs approval), that ``action`` entry with an ``approval`` (docs/timeline.md;
what the cards say is in ``client_action_cards``).
Expiry is a matter of time: from ``expiresAt`` on, every read shows the action
expired (``models.has_expired``: ``ClientAction.status_at`` and the queries of
``ClientActionQuerySet``); the periodic sweep (``sweep_expired``) writes it down.
"""

import re
from enum import Enum
from typing import NamedTuple, Protocol

from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.history import client_action_cards as cards
from historyhub.history import governance, response_schemas, usage_hours
from historyhub.history.action_events import Event
from historyhub.history.dialects import base
from historyhub.history.models import (
    DEFAULT_ALLOWED,
    ClientAction,
    ClientActionStatus,
    Decision,
    RunStatus,
    Session,
    TimelineEntry,
    has_expired,
    run_status_given,
)
from historyhub.history.writes import writing
from historyhub.lib import jsonvalues, session_keys, validation
from historyhub.lib.errors import (
    ActionResultConflict,
    AlreadyExecuted,
    ArgumentsMismatch,
    InvalidInput,
    NotApproved,
    NotFound,
    SessionNotFound,
)
from historyhub.lib.times import format_time


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    EXECUTION_CLAIMED = "execution.claimed"
    EXECUTION_REFUSED = "execution.refused"


Status = ClientActionStatus
DIGEST = re.compile("sha256:[0-9a-f]{64}")
# How an action that the agent's own items settled names who settled it: nobody decided it here.
REPORTED_BY = "agent (reported)"


class Opened(NamedTuple):
    action: ClientAction
    created: bool


class Resolved(NamedTuple):
    action: ClientAction
    changed: bool


# Opening ----------------------------------------------------------------------------


def open_action(
    key,
    *,
    call_id,
    name,
    arguments,
    description="",
    expires_at=None,
    allowed_responses=None,
    response_schema=None,
    by_key=None,
):
    """Open a waiting client action. A repeat with equal content is not an error; different content is."""
    validation.identifier(call_id, "callId")
    allowed = _allowed_responses(allowed_responses)
    if response_schema is not None:
        validation.json_value(response_schema, "responseSchema")
        validation.within_action_limit(response_schema, "responseSchema")
        response_schemas.check_schema(response_schema)
    validation.action_name(name, "name")
    if not isinstance(arguments, dict):
        raise InvalidInput("arguments must be an object.")
    validation.json_value(arguments, "arguments")
    validation.within_action_limit(arguments, "arguments")
    description = validation.within_action_limit(validation.text(description or "", "description"), "description")
    if expires_at is not None:
        parsed = base.parse_timestamp(expires_at)
        if parsed is None:
            raise InvalidInput("expiresAt must be an ISO 8601 time with a timezone.")
        expires_at = parsed
    with writing(key, by_key=by_key) as write:
        existing = ClientAction.objects.filter(session=write.session, call_id=call_id).first()
        if existing is not None:
            same = (
                existing.name == name
                and jsonvalues.equal(existing.arguments, arguments)
                and existing.description == description
                and existing.expires_at == expires_at
                and existing.allowed == allowed
                and jsonvalues.equal(existing.response_schema, response_schema)
            )
            if not same:
                raise ActionResultConflict(f"Client action {call_id!r} already exists with different content.")
            write.discard()
            return Opened(existing, False)
        if has_expired(expires_at, write.now):
            raise InvalidInput("expiresAt must lie in the future.")
        return open_in(
            write,
            call_id=call_id,
            name=name,
            arguments=arguments,
            description=description,
            expires_at=expires_at,
            created_at=write.now,
            order=write.take_position(),
            allowed=allowed,
            response_schema=response_schema,
        )


def _allowed_responses(names):
    """The decisions an action allows, in the vocabulary's order; None is the default."""
    if names is None:
        return tuple(DEFAULT_ALLOWED)
    if not isinstance(names, list) or not names or any(name not in Decision.values for name in names):
        raise InvalidInput(f"allowedResponses must be a non-empty list drawn from {', '.join(Decision.values)}.")
    return tuple(decision.value for decision in Decision if decision in names)


def open_in(
    write,
    *,
    call_id,
    name,
    arguments,
    description,
    created_at,
    order,
    expires_at=None,
    logged=None,
    allowed=DEFAULT_ALLOWED,
    response_schema=None,
):
    """Open an action inside a write: the record, its card, and the session waiting for it.

    ``logged`` is the log item that opens it, if any (its pop deletes the action again).
    """
    session = write.session
    existing = ClientAction.objects.filter(session=session, call_id=call_id).first()
    if existing is not None:
        # Opened before, perhaps in an epoch a compaction archived: it shows in this one too.
        if write.timeline.newest_for_call(call_id) is None:
            _add_card(write, existing, created_at, order, logged)
        return Opened(existing, False)
    action = ClientAction(
        session=session,
        call_id=call_id,
        name=name,
        arguments_json=jsonvalues.dumps(arguments),
        description=description,
        created_at=created_at,
        expires_at=expires_at,
        epoch=session.epoch,
        source_position=logged.position if logged is not None else None,
        opened_by_key=write.by_key,
        order=order,
        allowed_responses=",".join(allowed),
        response_schema_json=jsonvalues.dumps(response_schema) if response_schema is not None else None,
    )
    action.measure_texts()
    action.digest_arguments()
    governance.govern(action, session.project_id, session.agent, created_at)
    action.entry_key = _add_card(write, action, created_at, order, logged)
    action.save(force_insert=True)
    usage_hours.count_opened(write.usage, session, [created_at])
    write.notify(Event.OPENED, action)
    session.waiting_count += 1
    write.client_actions_changed()
    write.set_run_status(RunStatus.WAITING_FOR_CLIENT_ACTION)
    return Opened(action, True)


def _add_card(write, action, created_at, order, logged):
    """Show the action: on the card of the call it guards when there is one, else on a card of its own."""
    call = _gateable_call(write, action.call_id)
    if call is not None:
        write.change_entry(call, cards.gated_call_changes(action))
        return call.key
    position = logged.position if logged is not None else None
    entry = write.timeline.add(
        f"client-action:{action.call_id}",
        "client_action",
        cards.card_data(action),
        created_at,
        order,
        source_position=position,
        call_id=action.call_id,
    )
    return entry.key


def _gateable_call(write, call_id):
    """The card of a running call that no action guards yet, if the timeline shows one."""
    call = write.timeline.newest_for_call(call_id, types=("action",))
    if call is not None and "approval" not in call.data and call.data.get("status") == "running":
        return call
    return None


def gate_again(write):
    """Actions opened through the API that got a card of their own because their call had already run, whose
    call runs again now (its output was popped): they move onto the call's card, as if the output had never come."""
    session = write.session
    own_cards = ClientAction.objects.filter(
        session=session, status=Status.WAITING, source_position__isnull=True, entry_key__startswith="client-action:"
    )
    for action in own_cards:
        call = _gateable_call(write, action.call_id)
        if call is None or action.order is None or call.order > action.order:
            continue
        write.timeline.remove(action.entry_key)
        write.change_entry(write.timeline.get(call.key), cards.gated_call_changes(action))
        action.entry_key = call.key
        action.save(update_fields=["entry_key"])


def show_again(write, actions):
    """Actions whose card went with the items that placed it (a pop, a truncation) get a card of their own, where
    the action first took its place: the timeline reads as if the items had never come."""
    session = write.session
    shown = TimelineEntry.objects.filter(session=session, epoch=session.epoch).values("key")
    orphans = list(actions.exclude(entry_key__in=shown).order_by("order", "pk"))
    for action in orphans:
        entry = write.timeline.add(
            f"client-action:{action.call_id}",
            "client_action",
            cards.card_data(action),
            action.created_at,
            action.order if action.order is not None else write.take_position(),
            call_id=action.call_id,
        )
        action.entry_key = entry.key
        action.save(update_fields=["entry_key"])
    if orphans:
        write.timeline.resequence()


# Reading -------------------------------------------------------------------------------


def get(key, call_id):
    """The action ``call_id`` of the session ``key`` (``approvals.reading.get`` brings its votes, judged)."""
    action = ClientAction.objects.filter(session_id=key, call_id=call_id).first()
    if action is None:
        if not Session.objects.filter(pk=key).exists():
            raise SessionNotFound(key)
        raise NotFound(f"Client action {call_id!r} was not found in session {session_keys.session_id_of(key)!r}.")
    return action


def listing(project, status=None, agent=None, session_id=None, now=None):
    """Client actions across the sessions of ``project`` (its id), oldest first; ``status`` as readers see it at
    ``now``; ``session_id`` as the project knows it (``approvals.reading.listing`` brings their votes)."""
    now = now or timezone.now()
    actions = ClientAction.objects.select_related("session").filter(session__project=project)
    if status:
        actions = actions.showing(validation.choice(status, Status.values, "status"), now)
    if agent:
        actions = actions.filter(session__agent=agent)
    if session_id:
        actions = actions.filter(session_id=session_keys.session_key(project, session_id))
    return actions.order_by("created_at", "pk")


def waiting_count(project, now=None):
    """How many actions of ``project`` wait for a decision now (the navigation's inbox count)."""
    return ClientAction.objects.showing(Status.WAITING, now or timezone.now()).filter(session__project=project).count()


# Resolving -----------------------------------------------------------------------------


def supply_result(key, call_id, *, output, is_error=False, resolved_by):
    if is_error is None:
        is_error = False
    if not isinstance(is_error, bool):
        raise InvalidInput("isError must be true or false.")
    validation.json_value(output, "output")
    status = Status.FAILED if is_error else Status.COMPLETED
    return resolve(key, call_id, resolved_by, status=status, output_json=jsonvalues.dumps(output), is_error=is_error)


class Cast(Enum):
    """What a decision's vote does to the waiting action it is cast on (``Ruling.vote``)."""

    REPEATED = "repeated"  # the decider's vote was already so: nothing changes
    COUNTED = "counted"  # counted; the action still waits for more approvals
    FINAL = "final"  # the vote decides the action


class Ruling(Protocol):
    """What a decision brings to ``resolve`` (``approvals.deciding``): whether its decider may make it, and what its
    vote does. History settles actions; who may decide them and how votes count are approvals' rules."""

    def check(self, action, outcome):
        """Raise unless the decision (``outcome`` as sent, ``approved_arguments`` an object) may be made, whatever
        the action's state."""

    def vote(self, write, action, outcome):
        """Record the vote on the waiting ``action`` in ``write``; returns its ``Cast``."""

    def decided(self, action):
        """The vote decided ``action``, resolved now in the same write."""


def resolve(key, call_id, resolved_by, ruling=None, **outcome):
    """Resolve a waiting action once; a repeat of the same outcome is no change, a different one a conflict.

    A decision brings its ``ruling``: its decider must be allowed to make it, whatever the action's state, and its
    vote may count without deciding yet.
    """
    with writing(key) as write:
        action = ClientAction.objects.filter(session=write.session, call_id=call_id).first()
        if action is None:
            raise NotFound(f"Client action {call_id!r} was not found in session {session_keys.session_id_of(key)!r}.")
        if action.imported and not action.is_waiting:
            # Its record is the export's: nobody here decided it, and nobody here decides it again.
            raise ActionResultConflict(f"Client action {call_id!r} was imported resolved and cannot be decided again.")
        if ruling is not None:
            ruling.check(action, outcome)
        if "approved_arguments" in outcome:
            approved = outcome.pop("approved_arguments")
            outcome["approved_arguments_json"] = jsonvalues.dumps(
                approved if approved is not None else action.arguments
            )
        expired = action.status_at(write.now) == Status.EXPIRED
        if expired and action.is_waiting:
            # Time ran out before this answer came: the expiry is written down, and the answer refused below.
            resolve_in(write, action, status=Status.EXPIRED, resolved_at=action.expires_at)
        elif expired or not action.is_waiting:
            write.discard()
        else:
            cast = ruling.vote(write, action, outcome) if ruling is not None else Cast.FINAL
            if cast == Cast.REPEATED:
                write.discard()
                return Resolved(action, False)
            if cast == Cast.COUNTED:
                # One approval of several: the action waits on, and its card says who voted.
                write.client_actions_changed()
                write.action_changed(action.call_id)
                write.notify(Event.VOTED, action)
                return Resolved(action, True)
            resolve_in(write, action, resolved_by=resolved_by[:200], resolved_at=write.now, **outcome)
            if ruling is not None:
                ruling.decided(action)
            return Resolved(action, True)
    if expired:
        raise ActionResultConflict(f"Client action {call_id!r} expired and can no longer be resolved.")
    if _same_outcome(action, outcome):
        return Resolved(action, False)
    raise ActionResultConflict(f"Client action {call_id!r} was already resolved differently.")


def report_in(write, action, status, *, at, **outcome):
    """An item of the agent's log reports that the waiting ``action`` ended as ``status`` (with ``outcome``:
    decision, comment, output_json, is_error), inside the write that stores the item (docs/api.md, "Only a decision
    decides"). Returns whether the report settled it.

    A report settles only an action that the agent's own history opened (a log item, not ``POST …/client-actions``)
    and that no policy governs: HistoryHub mirrors a decision made elsewhere, as ``reported`` by "agent (reported)",
    with no vote and no audit row. Any other action stays waiting for its deciders, its card showing the report as
    unconfirmed; the change goes through the write, so a pop of the item takes it back.
    """
    if has_expired(action.expires_at, write.now):
        return False  # Over by time already: the report changes nothing.
    if action.source_position is not None and action.policy_json is None:
        resolve_in(write, action, status=status, resolved_by=REPORTED_BY, resolved_at=at, reported=True, **outcome)
        return True
    if action.agent_report != status:
        write.change_action(action, agent_report=status)
        show(write, action)
    return False


def resolve_in(write, action, **fields):
    """Move a waiting action to its final state inside a write, and show it: the one place an action's status
    changes (a pop's undo puts it back as it was)."""
    write.change_action(action, **fields)
    write.notify_resolved(action)
    write.session.waiting_count -= 1
    show(write, action)
    stop_waiting_unless_waiting(write)


def show(write, action):
    """Bring the card of ``action`` up to date with the action."""
    card = write.timeline.get(action.entry_key) if action.entry_key else None
    if card is not None:
        changes, removed = cards.card_changes(card, action)
        write.change_entry(card, changes, removed)


def stop_waiting_unless_waiting(write):
    """Once nothing waits for a person, a run waiting for one runs again (``models.run_status_given``)."""
    session = write.session
    write.set_run_status(run_status_given(session.run_status, waits=session.waiting_count > 0))


def align_run_status(write):
    """After items were taken back: the run waits for a person exactly when an action still waits (one opened
    through the API after the items, say), as if the items had never come."""
    session = write.session
    write.count_waiting_actions()
    if session.waiting_count and session.run_status in (None, RunStatus.RUNNING):
        write.set_run_status(RunStatus.WAITING_FOR_CLIENT_ACTION)
    stop_waiting_unless_waiting(write)


def _same_outcome(action, outcome):
    for name, value in outcome.items():
        current = getattr(action, name)
        if name.endswith("_json"):
            if (current is None) != (value is None):
                return False
            if current is not None and not jsonvalues.equal(jsonvalues.loads(current), jsonvalues.loads(value)):
                return False
        elif current != value:
            return False
    return True


# Executing --------------------------------------------------------------------------------


class Claimed(NamedTuple):
    executed_at: object
    arguments_digest: str


def claim_execution(key, call_id, *, arguments_digest, claimer):
    """The agent's side claims the one execution of an approved action with the digest of the arguments it is about
    to run (docs/api.md, "Executing what was approved, once"); ``claimer`` is how the audit log names the key.

    Only an action a decision approved here can be claimed (not one the agent's items reported, nor one imported
    resolved), once: the claim sets ``executed_at`` with an UPDATE that holds only while it is still empty, inside
    the session's write, so of any number of racing claimers exactly one gets it. A claim with other arguments than
    the approved ones is refused, and the refusal is kept: in the audit log, on the card, and announced
    (``client_action.execution_refused``), in a write that commits before the claimer hears 409.
    """
    if not isinstance(arguments_digest, str) or not DIGEST.fullmatch(arguments_digest):
        raise InvalidInput('argumentsDigest must be "sha256:" followed by 64 lowercase hex digits.')
    project, session_id = session_keys.split(key)
    target = f"{session_id} / {call_id}"
    with writing(key) as write:
        action = ClientAction.objects.filter(session=write.session, call_id=call_id).first()
        if action is None:
            raise NotFound(f"Client action {call_id!r} was not found in session {session_id!r}.")
        if action.status != Status.APPROVED or action.reported or action.imported:
            raise NotApproved(f"Client action {call_id!r} was not approved by a decision: it cannot be executed.")
        if action.executed_at is not None:
            executed_at = format_time(action.executed_at)
            raise AlreadyExecuted(f"Client action {call_id!r} was executed already, at {executed_at}.")
        refused = arguments_digest != action.approved_arguments_digest
        if refused:
            write.change_action(action, execution_refused_at=write.now)
            audit_log.record(
                project,
                claimer,
                Audited.EXECUTION_REFUSED,
                target,
                argumentsDigest=arguments_digest,
                approvedArgumentsDigest=action.approved_arguments_digest,
            )
            write.notify(Event.EXECUTION_REFUSED, action)
        else:
            claimed = ClientAction.objects.filter(pk=action.pk, executed_at__isnull=True).update(executed_at=write.now)
            if not claimed:
                raise AlreadyExecuted(f"Client action {call_id!r} was executed already.")
            action.executed_at = write.now
            write.action_changed(call_id)
            audit_log.record(project, claimer, Audited.EXECUTION_CLAIMED, target, argumentsDigest=arguments_digest)
        show(write, action)
    if refused:
        raise ArgumentsMismatch(f"These are not the arguments approved for client action {call_id!r}: nothing may run.")
    return Claimed(action.executed_at, arguments_digest)


# Expiry --------------------------------------------------------------------------------


def sweep_expired(now=None):
    """Write down the expiry of every waiting action past its expiresAt; returns how many. Run periodically."""
    now = now or timezone.now()
    due = list(ClientAction.objects.overdue(now).values_list("session_id", "call_id"))
    for session_id, call_id in due:
        with writing(session_id, missing_ok=True) as write:
            if write is None:
                continue
            action = ClientAction.objects.overdue(now).filter(session=write.session, call_id=call_id).first()
            if action is not None:
                resolve_in(write, action, status=Status.EXPIRED, resolved_at=action.expires_at)
    return len(due)

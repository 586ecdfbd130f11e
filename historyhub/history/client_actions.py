"""Client actions: open, supply a result, decide, expire (API.md "Client actions").

The API's result and decision endpoints, the dashboard's Approve and Reject
buttons and the admin's actions all resolve through ``resolve`` here.
"""

from django.db import transaction
from django.utils import timezone

from historyhub.history import dialects, jsonvalues, sessions, validation
from historyhub.history.errors import ActionResultConflict, InvalidInput, NotFound
from historyhub.history.models import ClientAction, ClientActionStatus, Session
from historyhub.history.projection import Projection

DECISIONS = ("approve", "reject")


def open_action(session_id, *, call_id, name, arguments, description="", expires_at=None):
    """Open a waiting client action; returns (action, created). A repeat with equal content is not an error."""
    validation.identifier(call_id, "callId")
    validation.identifier(name, "name")
    if not isinstance(arguments, dict):
        raise InvalidInput("arguments must be an object.")
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise InvalidInput("description must be a string.")
    validation.text(description, "description")
    if expires_at is not None:
        expires_at = dialects.parse_timestamp(expires_at)
        if expires_at is None:
            raise InvalidInput("expiresAt must be an ISO 8601 time with a timezone.")
    with transaction.atomic():
        session = sessions.lock(session_id)
        now = timezone.now()
        existing = ClientAction.objects.filter(session=session, call_id=call_id).first()
        if existing is not None:
            same = (
                existing.name == name
                and jsonvalues.equal(existing.arguments, arguments)
                and existing.description == description
                and existing.expires_at == expires_at
            )
            if not same:
                raise ActionResultConflict(f"Client action {call_id!r} already exists with different content.")
            return existing, False
        session.version += 1
        projection = Projection(session, now)
        action, created = projection.open_client_action(
            call_id,
            name,
            arguments,
            created_at=now,
            order=session.next_position,
            description=description,
            expires_at=expires_at,
        )
        session.next_position += 1
        projection.flush()
        sessions.save_state(session)
    return action, created


def get(session_id, call_id):
    expire_overdue()
    action = ClientAction.objects.filter(session_id=session_id, call_id=call_id).first()
    if action is None:
        if not Session.objects.filter(pk=session_id).exists():
            sessions.get(session_id)
        raise NotFound(f"Client action {call_id!r} was not found in session {session_id!r}.")
    return action


def waiting_and_resolved(status=None, agent=None, session_id=None):
    """Client actions across sessions, oldest first."""
    expire_overdue()
    actions = ClientAction.objects.select_related("session")
    if status:
        actions = actions.filter(status=validation.choice(status, ClientActionStatus.values, "status"))
    if agent:
        actions = actions.filter(session__agent=agent)
    if session_id:
        actions = actions.filter(session_id=session_id)
    return actions.order_by("created_at", "pk")


def supply_result(session_id, call_id, *, output, is_error=False, resolved_by):
    if is_error is None:
        is_error = False
    if not isinstance(is_error, bool):
        raise InvalidInput("isError must be true or false.")
    status = ClientActionStatus.FAILED if is_error else ClientActionStatus.COMPLETED
    return resolve(
        session_id,
        call_id,
        resolved_by,
        status=status,
        output_json=jsonvalues.dumps(output),
        is_error=is_error,
    )


def decide(session_id, call_id, *, decision, comment="", arguments=None, resolved_by):
    validation.choice(decision, DECISIONS, "decision")
    comment = comment or ""
    if not isinstance(comment, str):
        raise InvalidInput("comment must be a string.")
    validation.text(comment, "comment")
    if arguments is not None and not isinstance(arguments, dict):
        raise InvalidInput("arguments must be an object.")
    if decision == "reject":
        return resolve(
            session_id, call_id, resolved_by, status=ClientActionStatus.REJECTED, decision=decision, comment=comment
        )
    action = get(session_id, call_id)
    approved = arguments if arguments is not None else action.arguments
    return resolve(
        session_id,
        call_id,
        resolved_by,
        status=ClientActionStatus.APPROVED,
        decision=decision,
        comment=comment,
        approved_arguments_json=jsonvalues.dumps(approved),
    )


def resolve(session_id, call_id, resolved_by, **outcome):
    """Resolve a waiting action once. Returns (action, changed); a different second answer is a conflict."""
    expire_overdue()
    with transaction.atomic():
        session = sessions.lock(session_id)
        action = ClientAction.objects.select_for_update().filter(session=session, call_id=call_id).first()
        if action is None:
            raise NotFound(f"Client action {call_id!r} was not found in session {session_id!r}.")
        if not action.is_waiting:
            if action.status == ClientActionStatus.EXPIRED:
                raise ActionResultConflict(f"Client action {call_id!r} expired and can no longer be resolved.")
            if _same_outcome(action, outcome):
                return action, False
            raise ActionResultConflict(f"Client action {call_id!r} was already resolved differently.")
        now = timezone.now()
        session.version += 1
        projection = Projection(session, now)
        projection.resolve_client_action(action, resolved_by=resolved_by[:200], resolved_at=now, **outcome)
        projection.flush()
        sessions.save_state(session)
    return action, True


def _same_outcome(action, outcome):
    for field, value in outcome.items():
        current = getattr(action, field)
        if field.endswith("_json"):
            if (current is None) != (value is None):
                return False
            if current is not None and not jsonvalues.equal(jsonvalues.loads(current), jsonvalues.loads(value)):
                return False
        elif current != value:
            return False
    return True


def expire_overdue():
    """Mark waiting actions past their expiresAt as expired. Cheap when none are due."""
    now = timezone.now()
    due = list(
        ClientAction.objects.filter(status=ClientActionStatus.WAITING, expires_at__lte=now).values_list(
            "session_id", "call_id"
        )
    )
    for session_id, call_id in due:
        with transaction.atomic():
            session = sessions.lock(session_id, missing_ok=True)
            action = ClientAction.objects.filter(
                session=session, call_id=call_id, status=ClientActionStatus.WAITING
            ).first()
            if action is None:
                continue
            session.version += 1
            projection = Projection(session, now)
            projection.resolve_client_action(action, status=ClientActionStatus.EXPIRED, resolved_at=action.expires_at)
            projection.flush()
            sessions.save_state(session)


def as_dict(action):
    """The ClientAction of API.md."""
    return {
        "sessionId": action.session_id,
        "callId": action.call_id,
        "name": action.name,
        "arguments": action.arguments,
        "description": action.description,
        "status": action.status,
        "createdAt": dialects.format_time(action.created_at),
        "expiresAt": dialects.format_time(action.expires_at),
        "resolvedAt": dialects.format_time(action.resolved_at),
        "resolvedBy": action.resolved_by or None,
        "decision": action.decision or None,
        "comment": action.comment or None,
        "approvedArguments": action.approved_arguments,
        "output": action.output,
        "isError": action.is_error,
    }

"""Park a run until its client actions are decided, find the ready ones, and let one resumer claim each.

A run is *ready* when none of the client actions it awaits is still waiting
(one whose expiresAt has passed counts as decided, expired, whether or not
anything has marked it yet) and no resumer holds it. Claiming is one
conditional UPDATE, so of several resumers exactly one gets the run.
"""

import re
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Prefetch, Q
from django.utils import timezone

from historyhub.history import sessions
from historyhub.history.models import ClientAction, ClientActionStatus
from historyhub.lib import session_keys, validation
from historyhub.lib.errors import DomainError, InvalidInput, NotFound
from historyhub.runs.models import Run

# Run ids travel in paths: the characters of session ids, so every stored id can be addressed.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}")
MAX_AWAITED = 100
DEFAULT_LEASE_SECONDS = 600
MAX_LEASE_SECONDS = 24 * 60 * 60


class RunClaimed(DomainError):
    code, status = "run_claimed", 409


class RunNotReady(DomainError):
    code, status = "run_not_ready", 409


def park(key, run_id, *, agent, state, call_ids):
    """Keep a run's state until the client actions ``call_ids`` are decided; returns (run, created).

    Parking again replaces the state and the awaited actions, and releases a claim.
    """
    _run_id(run_id)
    validation.identifier(agent, "agent")
    if not isinstance(state, str) or not state:
        raise InvalidInput("state must be a non-empty string.")
    validation.text(state, "state")
    if not isinstance(call_ids, list) or not 1 <= len(call_ids) <= MAX_AWAITED:
        raise InvalidInput(f"callIds must be a list of 1-{MAX_AWAITED} call ids.")
    for call_id in call_ids:
        validation.identifier(call_id, "callIds")
    session = sessions.get(key)
    with transaction.atomic():
        actions = list(ClientAction.objects.filter(session=session, call_id__in=call_ids))
        unknown = sorted(set(call_ids) - {action.call_id for action in actions})
        if unknown:
            # The same answer as the client-action endpoints give for a call id the session lacks.
            raise NotFound(
                f"Client action {unknown[0]!r} was not found in session {session_keys.session_id_of(key)!r}."
            )
        try:
            with transaction.atomic():
                run = Run.objects.create(session=session, run_id=run_id, agent=agent, state=state)
            created = True
        except IntegrityError:
            run = Run.objects.select_for_update().get(session=session, run_id=run_id)
            run.agent, run.state, run.claimed_until, run.claimed_by = agent, state, None, ""
            run.save(update_fields=["agent", "state", "claimed_until", "claimed_by", "updated_at"])
            created = False
        run.awaiting.set(actions)
    return get(key, run_id), created


def get(key, run_id):
    run = with_readiness(Run.objects.filter(session_id=key, run_id=run_id)).first()
    if run is None:
        sessions.get(key)
        raise NotFound(f"Run {run_id!r} was not found in session {session_keys.session_id_of(key)!r}.")
    return run


def delete(key, run_id):
    deleted, _ = Run.objects.filter(session_id=key, run_id=run_id).delete()
    if not deleted:
        get(key, run_id)


def search(project, *, ready=None, agent=None, session_id=None):
    """Parked runs of ``project`` (its id), oldest change first, each annotated with ``ready``; ``session_id`` as
    the project knows it."""
    runs = with_readiness(Run.objects.filter(session__project=project))
    if ready is not None:
        runs = runs.filter(ready=ready)
    if agent:
        runs = runs.filter(agent=agent)
    if session_id:
        runs = runs.filter(session_id=session_keys.session_key(project, session_id))
    return runs.order_by("updated_at", "pk")


def claim(key, run_id, *, lease_seconds=None, claimed_by):
    """Take a ready run for ``lease_seconds``; another resumer cannot take it until the lease ends."""
    lease_seconds = DEFAULT_LEASE_SECONDS if lease_seconds is None else lease_seconds
    if not 1 <= lease_seconds <= MAX_LEASE_SECONDS:
        raise InvalidInput(f"leaseSeconds must be between 1 and {MAX_LEASE_SECONDS}.")
    now = timezone.now()
    claimed = (
        Run.objects.filter(session_id=key, run_id=run_id)
        .filter(_unclaimed(now))
        .filter(~Exists(_undecided(now)))
        .update(claimed_until=now + timedelta(seconds=lease_seconds), claimed_by=claimed_by[:200])
    )
    run = get(key, run_id)
    if claimed:
        return run
    if run.claimed_until is not None and run.claimed_until > now:
        raise RunClaimed(f"Run {run_id!r} is being resumed by {run.claimed_by or 'another resumer'}.")
    waiting = ", ".join(repr(call_id) for call_id in waiting_call_ids(run, now))
    raise RunNotReady(f"Run {run_id!r} still waits for a decision on {waiting}.")


def with_readiness(runs, now=None):
    """Runs annotated with ``ready``, their awaited actions fetched in the order they were opened."""
    now = now or timezone.now()
    ready = ExpressionWrapper(_unclaimed(now) & ~Exists(_undecided(now)), output_field=BooleanField())
    awaited = Prefetch("awaiting", queryset=ClientAction.objects.order_by("created_at", "pk"))
    return runs.annotate(ready=ready).prefetch_related(awaited)


def _unclaimed(now):
    return Q(claimed_until__isnull=True) | Q(claimed_until__lte=now)


def _undecided(now):
    """The awaited client actions nobody has decided and whose expiresAt, if any, has not passed."""
    return ClientAction.objects.showing(ClientActionStatus.WAITING, now).filter(parked_runs=OuterRef("pk"))


def waiting_call_ids(run, now):
    waiting = run.awaiting.showing(ClientActionStatus.WAITING, now).order_by("created_at", "pk")
    return list(waiting.values_list("call_id", flat=True))


def _run_id(value):
    if not isinstance(value, str) or not RUN_ID.fullmatch(value):
        raise InvalidInput("runId must be 1-200 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit.")
    return value

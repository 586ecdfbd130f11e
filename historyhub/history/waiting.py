"""Waiting for a client action to leave ``waiting`` (``GET …/client-actions/{callId}?wait=S``, docs/live-updates.md).

A waiter is a coroutine: it reads the action, then sleeps until that action is
announced as changed (decided, given a result, expired by the sweep, deleted
with its session), its ``expiresAt`` comes, or its own time runs out, and reads
again. Nothing else wakes it: a decision on one of a thousand actions of a
session wakes that action's waiters only. Between reads it holds no thread and
no database connection, so a thousand agents waiting on people cost a thousand
sockets.
"""

import contextlib

from django.conf import settings
from django.utils import timezone

from historyhub import live
from historyhub.history import client_actions
from historyhub.history.models import ClientActionStatus
from historyhub.lib import session_keys
from historyhub.lib.errors import DomainError, SessionNotFound

# A read a hair before expiresAt may still show the action waiting: look again this soon.
EXPIRY_RECHECK_SECONDS = 0.01


class SessionDeletedWhileWaiting(SessionNotFound):
    """The wait's session was there when it began and is gone now: deleted, erased or removed by retention with
    all it owned. Still 404 ``session_not_found`` (the contract's code), saying why the wait ended."""

    def __init__(self, key, call_id):
        DomainError.__init__(
            self,
            f"Session {session_keys.session_id_of(key)!r} was deleted while this request waited for client action "
            f"{call_id!r} (the session was deleted or erased); the action was deleted with it.",
        )


async def wait_for_resolution(session_id, call_id, seconds, waiter=None, read=client_actions.get):
    """The action as soon as it is no longer waiting, or as it is after ``seconds``.

    ``read`` reads the action (``approvals.reading.get`` brings its votes, judged, for the answer). Raises what
    ``client_actions.get`` raises, ``SessionDeletedWhileWaiting`` (a
    ``SessionNotFound``) when the session is deleted while we wait, ``live.Closed``
    when the server shuts down first, and ``live.TooMany`` when ``waiter`` (whoever waits: an API key's id) already
    holds HISTORYHUB_MAX_WAITS_PER_KEY waits in the whole installation (historyhub.live.holds).
    """
    interest = live.Interest(action=(session_id, call_id))
    place = (
        live.holding(f"waits key:{waiter}", settings.HISTORYHUB_MAX_WAITS_PER_KEY)
        if waiter is not None
        else contextlib.nullcontext()
    )
    async with place, live.listen(interest) as changes:
        # Listening before the first read: a decision committed in between still wakes us. The time the request
        # queued for its turn at the database counts (historyhub.live.turns): the client gave it seconds in all.
        deadline = changes.loop.time() + seconds - live.turns.queued()
        action = await live.read(read, session_id, call_id)
        while True:
            remaining = deadline - changes.loop.time()
            if action.status_at(timezone.now()) != ClientActionStatus.WAITING or remaining <= 0:
                return action
            if action.expires_at is not None:
                # Nobody writes when an action expires: from expiresAt on, the action reads expired.
                until_expiry = (action.expires_at - timezone.now()).total_seconds()
                remaining = min(remaining, max(until_expiry, EXPIRY_RECHECK_SECONDS))
            await changes.wait(remaining)
            try:
                action = await live.read(read, session_id, call_id)
            except SessionNotFound:
                # Deleting a session announces all its actions as changed (history.ownership), which woke us.
                raise SessionDeletedWhileWaiting(session_id, call_id) from None

"""Waiting for a client action to leave ``waiting`` (``GET …/client-actions/{callId}?wait=S``, docs/live-updates.md).

A waiter is a coroutine: it reads the action, then sleeps until its session is
announced as changed, the action's ``expiresAt`` comes, or its own time runs
out, and reads again. Between reads it holds no thread and no database
connection, so a thousand agents waiting on people cost a thousand sockets.
"""

from django.utils import timezone

from historyhub import live
from historyhub.history import client_actions
from historyhub.history.models import ClientActionStatus

# A read a hair before expiresAt may still show the action waiting: look again this soon.
EXPIRY_RECHECK_SECONDS = 0.01


async def wait_for_resolution(session_id, call_id, seconds):
    """The action as soon as it is no longer waiting, or as it is after ``seconds``.

    Raises what ``client_actions.get`` raises (the session may be deleted while
    we wait), and ``live.Closed`` when the server shuts down first.
    """
    async with live.listen(session_id) as changes:
        # Listening before the first read: a decision committed in between still wakes us.
        deadline = changes.loop.time() + seconds
        while True:
            action = await live.read(client_actions.get, session_id, call_id)
            remaining = deadline - changes.loop.time()
            if action.status_at(timezone.now()) != ClientActionStatus.WAITING or remaining <= 0:
                return action
            if action.expires_at is not None:
                # Nobody writes when an action expires: from expiresAt on, the action reads expired.
                until_expiry = (action.expires_at - timezone.now()).total_seconds()
                remaining = min(remaining, max(until_expiry, EXPIRY_RECHECK_SECONDS))
            await changes.wait(remaining)

"""A dashboard page's live stream: server-sent events that tell it when to ask again (docs/live-updates.md).

A page hears ``changed`` when something it shows changed: the sessions page
when any session did, the approvals page when what waits for a person did, a
session's page when that session or the inbox did (the header's count is on
every page); a session's page also hears ``session`` when that session
changed. A stream sends at once, then at most one burst a second, once more a
second after the last burst, and a comment every 20 s so proxies keep it open.
An action that expires reaches the streams through the process's expiry
ticker (historyhub.live.expiry), once for all of them.
"""

import asyncio
import weakref

from historyhub import live
from historyhub.lib import session_keys, validation

# How soon the browser reconnects, how often an idle stream says it is alive,
# and how long a stream gathers changes after sending some.
RETRY_MS = 1000
KEEPALIVE_SECONDS = 20
COALESCE_SECONDS = 1


def session_key_in(project, session_id):
    """The key of the session ``session_id`` names in ``project``, or None when it cannot name one there: a
    session id holds no "/", so ``beta/bv1`` on a page of ``default`` (whose keys are bare ids) would otherwise
    be the key of project beta's session, and its page would hear another project's changes."""
    if not isinstance(session_id, str) or not validation.SESSION_ID.fullmatch(session_id):
        return None
    return session_keys.session_key(project, session_id)


def interest(project, session_key=None, inbox_only=False):
    """What a page of ``project`` hears: its session and the inbox, the inbox only, or the whole project."""
    if session_key is not None:
        if session_keys.project_of(session_key) != project:
            raise ValueError(f"{session_key!r} is not a session of {project!r}")
        return live.Interest(session=session_key, inbox=project)
    if inbox_only:
        return live.Interest(inbox=project)
    return live.Interest(project=project)


def events(subscription, session_id):
    """The stream of one page, over a ``subscription`` already started; ``session_id`` is the session it shows.

    The subscription ends with the stream, and also if the stream is dropped before it ever starts (a page that
    went away at once), so no subscription outlives its page.
    """
    stream = _events(subscription, session_id)
    weakref.finalize(stream, subscription.stop)
    return stream


async def _events(changes, session_id):
    # Past its view, a stream reads nothing: its turn at the database goes to the waits (historyhub.live.turns).
    live.turns.finished()
    try:
        yield f"retry: {RETRY_MS}\n\n"
        # Whatever changed between the page's render (or a dropped stream) and listening.
        yield event(session_id, live.Changes(unknown=True))
        trailing = None
        while True:
            heard = await changes.wait(KEEPALIVE_SECONDS if trailing is None else 0)
            if heard:
                trailing = event(session_id, heard)
                yield trailing
                # A busy system sends a page one burst a second, not one per write.
                await asyncio.sleep(COALESCE_SECONDS)
            elif trailing is not None:
                # Once more after the last burst: a page drops an event that comes while it is still
                # fetching the previous one (or what the person asked for); by now that is done.
                yield trailing
                trailing = None
            else:
                yield ": keep-alive\n\n"
    except live.Closed:
        # The worker is shutting down: the browser reconnects to another.
        return
    finally:
        changes.stop()


def event(session_id, changes):
    """`changed`, and `session` too when the changes touch the session the page shows."""
    text = "event: changed\ndata: \n\n"
    if session_id is not None and changes.touches(session_id):
        text += "event: session\ndata: \n\n"
    return text

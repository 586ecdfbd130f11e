"""A dashboard page's live stream: server-sent events that tell it when to ask again (docs/live-updates.md).

Every page hears ``changed`` when any session changed; a session's page also
hears ``session`` when that session did. A stream sends at once, then at most
one burst a second, once more a second after the last burst, when a waiting
action expires, and a comment every 20 s so proxies keep it open.
"""

import asyncio

from django.utils import timezone

from historyhub import live
from historyhub.history.models import ClientAction, ClientActionStatus

# How soon the browser reconnects, how often an idle stream says it is alive,
# and how long a stream gathers changes after sending some.
RETRY_MS = 1000
KEEPALIVE_SECONDS = 20
COALESCE_SECONDS = 1


async def events(session_id):
    """The stream of one page; ``session_id`` is the session it shows, if any."""
    try:
        async with live.listen() as changes:
            yield f"retry: {RETRY_MS}\n\n"
            # Whatever changed between the page's render (or a dropped stream) and listening.
            yield event(session_id, live.Changes(unknown=True))
            told_at = timezone.now()
            trailing = None
            while True:
                # Nobody writes when an action expires: the pages look again when one does.
                expiry = await live.read(next_expiry, told_at)
                timeout = KEEPALIVE_SECONDS if trailing is None else 0
                if expiry is not None:
                    timeout = min(timeout, (expiry - timezone.now()).total_seconds())
                heard = await changes.wait(timeout)
                if heard or (expiry is not None and timezone.now() >= expiry):
                    told_at = timezone.now()
                    trailing = event(session_id, heard or live.Changes(unknown=True))
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


def event(session_id, changes):
    """`changed`, and `session` too when the changes touch the session the page shows."""
    text = "event: changed\ndata: \n\n"
    if session_id is not None and changes.touches(session_id):
        text += "event: session\ndata: \n\n"
    return text


def next_expiry(after):
    """When the first waiting action to expire after ``after`` does, if any: one indexed query."""
    upcoming = ClientAction.objects.filter(status=ClientActionStatus.WAITING, expires_at__gt=after)
    return upcoming.order_by("expires_at").values_list("expires_at", flat=True).first()

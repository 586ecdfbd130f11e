"""The live stream of an open page (docs/live-updates.md): server-sent events that tell the page something it
shows changed, so it asks again for what it shows."""

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET

from historyhub import live
from historyhub.dashboard import stream
from historyhub.projects import access


def too_many_streams(limit):
    message = f"You have {limit} live pages open already; close some tabs and reload this one."
    return HttpResponse(message, status=429, content_type="text/plain; charset=utf-8", headers={"Retry-After": "30"})


@require_GET
async def live_updates(request, project_id):
    """Server-sent events for an open page (docs/live-updates.md): ``changed`` when something the page
    shows changed (the sessions table, the approvals, the inbox count refresh themselves), ``session``
    when the session the page shows did (its timeline asks for what is new).

    One stream per page, holding no thread while it is open; a visitor who is not
    logged in gets 204, which tells the browser to stop trying; a ``session`` that is not a session id of this
    project (``beta/bv1`` on a page of ``default``) gets 404, and a person with
    HISTORYHUB_MAX_STREAMS_PER_USER streams open in the installation already gets 429.
    """
    user = await request.auser()
    if not user.is_authenticated or await live.read(access.role_of, user, project_id) is None:
        return HttpResponse(status=204)
    session_id = request.GET.get("session") or None
    session_key = stream.session_key_in(project_id, session_id) if session_id else None
    if session_id and session_key is None:
        # Not a session id (another project's session key, say): no page of this project shows it.
        return HttpResponse(status=404)
    interest = stream.interest(project_id, session_key, inbox_only=request.GET.get("inbox") == "1")
    try:
        # Counted for the whole installation, whichever server holds each page's stream.
        place = await live.hold(f"streams user:{user.pk}", settings.HISTORYHUB_MAX_STREAMS_PER_USER)
    except live.TooMany as too_many:
        return too_many_streams(too_many.limit)
    subscription = live.listen(interest)
    try:
        subscription.start()
    except live.Closed:
        live.release_soon(place)
        return HttpResponse(status=503, headers={"Retry-After": "1"})
    events = live.releasing(stream.events(subscription, session_key), place)
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    # A proxy must pass each event on as it comes, not buffer the stream.
    response["X-Accel-Buffering"] = "no"
    return response

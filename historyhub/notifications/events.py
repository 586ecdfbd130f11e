"""An event about a client action becomes outbox rows, one per channel that wants it, in the transaction that
made the change: a change that rolls back leaves no row, one that commits leaves them all (docs/notifications.md).

The body is fixed here, as the webhook sends it: ``{"type", "timestamp", "data": {projectId, sessionId, agent,
callId, clientAction, url}}``. Email and Slack read the same body, so every channel tells the same story.
"""

from fnmatch import fnmatchcase

from django.conf import settings
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from historyhub.history import jsonvalues
from historyhub.history.dialects.base import format_time
from historyhub.notifications.event_types import Event
from historyhub.notifications.models import Channel, Delivery, DeliveryStatus
from historyhub.projects import keys

# The worker LISTENs here on PostgreSQL; the notification reaches it when, and only if, the transaction commits.
WAKE_CHANNEL = "historyhub_outbox"


def announce(event, action):
    event = Event(event)
    project_id, session_id = keys.split(action.session_id)
    agent = action.session.agent
    channels = [
        channel
        for channel in Channel.objects.filter(project_id=project_id, enabled=True)
        if wants(channel, event, agent, action.name)
    ]
    if not channels:
        return
    now = timezone.now()
    body = jsonvalues.dumps(payload(event, action, project_id, session_id, agent, now))
    Delivery.objects.bulk_create(
        Delivery(
            channel=channel, event=event, body=body, created_at=now, next_attempt_at=now, status=DeliveryStatus.PENDING
        )
        for channel in channels
    )
    wake_workers()


def wants(channel, event, agent, action_name):
    """Whether ``channel`` asked for ``event`` about this agent's action; empty globs match everything."""
    return (
        event in channel.events
        and (not channel.agents or any(fnmatchcase(agent, glob) for glob in channel.agents))
        and (not channel.actions or any(fnmatchcase(action_name, glob) for glob in channel.actions))
    )


def payload(event, action, project_id, session_id, agent, now):
    # The API's own shape of a ClientAction, so a consumer reads webhooks with the same code as answers.
    from historyhub.history.schemas import ClientActionOut

    return {
        "type": str(event),
        "timestamp": format_time(now),
        "data": {
            "projectId": project_id,
            "sessionId": session_id,
            "agent": agent,
            "callId": action.call_id,
            "clientAction": ClientActionOut.from_orm(action).model_dump(mode="json"),
            "url": action_url(project_id, session_id),
        },
    }


def action_url(project_id, session_id):
    """The action on the dashboard, absolute: its session's timeline, where its card has the buttons."""
    return settings.HISTORYHUB_PUBLIC_URL + reverse("dashboard:session", args=[project_id, session_id])


def wake_workers():
    """Tell waiting workers there is work, once this transaction commits (a rolled-back one tells nobody)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, '')", [WAKE_CHANNEL])
    # SQLite has one worker, which polls (outbox.POLL_SECONDS).

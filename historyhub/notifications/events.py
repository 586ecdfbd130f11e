"""An event about a client action becomes outbox rows, one per channel that wants it, in the transaction that
made the change: a change that rolls back leaves no row, one that commits leaves them all (docs/notifications.md).

The body is fixed here, as the webhook sends it: ``{"type", "timestamp", "data": {projectId, sessionId, agent,
callId, clientAction, url}}``. Email and Slack read the same body, so every channel tells the same story.
"""

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from historyhub.history.action_events import Event
from historyhub.lib import globs, jsonvalues, session_keys, wakeups
from historyhub.lib.times import format_time
from historyhub.notifications.models import Channel, Delivery, DeliveryStatus


def on_action_event(sender, event, action, **kwargs):
    """The receiver of ``action_events.happened`` (connected in ``NotificationsConfig.ready``)."""
    announce(event, action)


def announce(event, action):
    """Write the outbox rows for ``event`` about ``action``, in the open transaction."""
    event = Event(event)
    project_id, session_id = session_keys.split(action.session_id)
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
    wakeups.wake_workers()


def wants(channel, event, agent, action_name):
    """Whether ``channel`` asked for ``event`` about this agent's action; empty globs match everything."""
    return (
        event in channel.events
        and globs.matches(agent, channel.agents, empty_matches_all=True)
        and globs.matches(action_name, channel.actions, empty_matches_all=True)
    )


def payload(event, action, project_id, session_id, agent, now):
    # The API's own shape of a ClientAction, so a consumer reads webhooks with the same code as answers.
    from historyhub.approvals.schemas import ClientActionOut

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

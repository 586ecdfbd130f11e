"""A channel's test event, "Send a test event" on the channels page (docs/notifications.md, "Test events").

One outbox row for that one channel, whatever events, agents and actions it asks for, sent by the delivery
worker like every other row, so its attempt tells whether the channel works as it is set up: the receiver's
status, the mail server's or Slack's answer. It is tried once (``outbox.record``): the person who sent it waits for
that answer, not for a retry schedule. The webhook body is ``{"type": "channel.test", "timestamp", "data":
{projectId, channelId, channelName, sentBy, url}}``, ``url`` the channels page.
"""

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.lib import jsonvalues, wakeups
from historyhub.lib.errors import InvalidInput
from historyhub.lib.times import format_time
from historyhub.notifications.models import TEST_EVENT, Delivery, DeliveryStatus


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    CHANNEL_TEST_SENT = "channel.test_sent"


def send(channel, *, actor):
    """Queue a test event to ``channel`` as ``actor``'s (a person's username), recorded in the audit log; the
    delivery row, which the worker picks up at once."""
    if not channel.enabled:
        raise InvalidInput("The channel is disabled: enable it to send it a test event.")
    now = timezone.now()
    body = jsonvalues.dumps(payload(channel, actor, now))
    with transaction.atomic():
        delivery = Delivery.objects.create(
            channel=channel,
            event=TEST_EVENT,
            body=body,
            created_at=now,
            next_attempt_at=now,
            status=DeliveryStatus.PENDING,
        )
        audit_log.record(
            channel.project_id,
            actor,
            Audited.CHANNEL_TEST_SENT,
            str(delivery.pk),
            channelId=channel.pk,
            channelName=channel.name,
            webhookId=delivery.webhook_id,
        )
        wakeups.wake_workers()
    return delivery


def payload(channel, actor, now):
    page = reverse("dashboard:channels", kwargs={"project_id": channel.project_id})
    return {
        "type": TEST_EVENT,
        "timestamp": format_time(now),
        "data": {
            "projectId": channel.project_id,
            "channelId": channel.pk,
            "channelName": channel.name,
            "sentBy": actor,
            "url": settings.HISTORYHUB_PUBLIC_URL + page,
        },
    }

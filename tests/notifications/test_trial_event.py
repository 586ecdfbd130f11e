"""A channel's test event (docs/notifications.md, "Test events"): one outbox row for that one channel, whatever it
asks for, sent by the worker like any other and tried once; the webhook's receiver gets it signed, an email
channel mails the person who sent it, a Slack channel posts it."""

import pytest

from historyhub.audit.models import AuditEntry
from historyhub.lib.errors import InvalidInput
from historyhub.notifications import channels, trial_event
from historyhub.notifications.models import Channel, Delivery
from tests.notifications.conftest import deliver_due
from tests.notifications.test_webhooks import verified
from tests.support.actors import make_member
from tests.support.smtp import local_inbox, text_of
from tests.support.tiny_server import TinyServer

pytestmark = pytest.mark.django_db


def test_a_webhook_gets_the_test_event_signed_whatever_events_and_globs_it_asks_for(webhook, receiver):
    channel = Channel.objects.get(pk=webhook["channelId"])
    channels.update(channel, actor="tests", agents=["nobody-*"], events=["client_action.expired"])

    delivery = trial_event.send(channel, actor="boss")
    assert deliver_due() == 1

    [request] = receiver.requests
    body = verified(webhook, request)
    assert body["type"] == "channel.test"
    assert body["data"] == {
        "projectId": "default",
        "channelId": channel.pk,
        "channelName": "ops",
        "sentBy": "boss",
        "url": "https://historyhub.example.com/p/default/settings/channels/",
    }
    assert request["headers"]["webhook-id"] == delivery.webhook_id
    delivery.refresh_from_db()
    assert (delivery.status, [attempt.status for attempt in delivery.attempts.all()]) == ("delivered", [200])
    row = AuditEntry.objects.get(action="channel.test_sent")
    assert (row.actor, row.target) == ("boss", str(delivery.pk))
    assert row.details == {"channelId": channel.pk, "channelName": "ops", "webhookId": delivery.webhook_id}


def test_a_test_event_the_receiver_refuses_is_failed_after_one_attempt_with_its_status(admin_api):
    with TinyServer([(500, {}, {"error": "down"})]) as receiver:
        channel = channels.create(
            "default", "webhook", actor="tests", name="ops", events=["client_action.opened"], url=receiver.url
        )
        delivery = trial_event.send(channel, actor="boss")
        deliver_due()
        assert deliver_due() == 0
    delivery.refresh_from_db()
    assert (delivery.status, delivery.next_attempt_at) == ("failed", None)
    assert [attempt.status for attempt in delivery.attempts.all()] == [500]
    assert Channel.objects.get(pk=channel.pk).enabled


def test_a_disabled_channel_is_sent_no_test_event(webhook):
    channel = channels.update(Channel.objects.get(pk=webhook["channelId"]), actor="tests", enabled=False)
    with pytest.raises(InvalidInput, match="enable it"):
        trial_event.send(channel, actor="boss")
    assert not Delivery.objects.exists() and not AuditEntry.objects.filter(action="channel.test_sent").exists()


def test_an_email_channels_test_goes_to_the_person_who_sent_it(settings):
    boss = make_member("boss", "admin")
    boss.email = "boss@example.com"
    boss.save()
    ana = make_member("ana", "approver")
    ana.email = "ana@example.com"
    ana.save()
    channel = channels.create("default", "email", actor="boss", name="mail", events=["client_action.opened"])
    with local_inbox(settings) as inbox:
        delivery = trial_event.send(channel, actor="boss")
        deliver_due()
    [(recipients, message)] = inbox.messages
    assert recipients == ["boss@example.com"]
    assert message["Subject"] == "[HistoryHub] Test of the channel mail"
    assert "https://historyhub.example.com/p/default/settings/channels/" in text_of(message)
    delivery.refresh_from_db()
    assert delivery.status == "delivered"

    boss.email = ""
    boss.save()
    unsent = trial_event.send(channel, actor="boss")
    deliver_due()
    unsent.refresh_from_db()
    assert unsent.status == "failed"
    assert unsent.attempts.get().excerpt == "boss has no email address to send the test to."


def test_a_slack_channels_test_is_posted_in_its_slack_channel(slack_channel, slack):
    delivery = trial_event.send(Channel.objects.get(pk=slack_channel["channelId"]), actor="<!channel>")
    deliver_due()
    [posted] = slack.called("chat.postMessage")
    assert posted["body"]["channel"] == "C42"
    assert "sent by &lt;!channel&gt;" in posted["body"]["text"]
    delivery.refresh_from_db()
    assert delivery.status == "delivered"

"""Webhooks: every event reaches the receiver as Standard Webhooks defines, signed so the `standardwebhooks`
library verifies it; retries, Retry-After, 410 and replay (docs/notifications.md, "Webhooks")."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from historyhub.history import client_actions
from historyhub.notifications.models import Channel, Delivery
from tests.notifications.conftest import deliver_due
from tests.support.tiny_server import TinyServer

pytestmark = pytest.mark.django_db


def open_action(api, session_id, call_id="call-1"):
    answer = api.post(
        f"sessions/{session_id}/client-actions",
        {"callId": call_id, "name": "send_email", "arguments": {"to": "a@example.com"}},
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def verified(webhook, request):
    """The body of a received request, after the standardwebhooks library verified its signature."""
    raw = json.dumps(request["body"], ensure_ascii=False, separators=(",", ":"))
    return Webhook(webhook["secret"]).verify(raw, request["headers"])


def test_an_opened_action_reaches_the_receiver_signed_with_the_fields_api_md_names(api, session_id, webhook, receiver):
    opened = open_action(api, session_id)
    assert receiver.requests == []  # nothing is sent from the request
    assert deliver_due() == 1
    [request] = receiver.requests
    assert request["method"] == "POST"
    body = verified(webhook, request)
    assert body["type"] == "client_action.opened"
    assert body["timestamp"].endswith("Z")
    assert body["data"] == {
        "projectId": "default",
        "sessionId": session_id,
        "agent": "support",
        "callId": "call-1",
        "clientAction": opened,
        "url": f"https://historyhub.example.com/p/default/sessions/{session_id}/",
    }
    assert request["headers"]["webhook-id"].startswith("msg_")
    assert request["headers"]["webhook-signature"].startswith("v1,")


def test_the_secret_is_shown_at_creation_only(admin_api, webhook):
    assert webhook["secret"].startswith("whsec_")
    listed = admin_api.get("channels").json()["items"]
    assert [channel["channelId"] for channel in listed] == [webhook["channelId"]]
    assert "secret" not in listed[0]
    changed = admin_api.patch(f"channels/{webhook['channelId']}", {"name": "renamed"})
    assert changed.status_code == 200
    assert "secret" not in changed.json()
    assert changed.json()["name"] == "renamed"


def test_each_event_of_an_action_reaches_the_receiver(api, decide_api, session_id, webhook, receiver):
    open_action(api, session_id, "call-1")
    open_action(api, session_id, "call-2")
    decided = decide_api.post(f"sessions/{session_id}/client-actions/call-1/decision", {"decision": "approve"})
    assert decided.status_code == 200
    result = api.post(f"sessions/{session_id}/client-actions/call-2/result", {"output": "sent"})
    assert result.status_code == 200
    deliver_due()
    events = [(r["body"]["type"], r["body"]["data"]["callId"]) for r in receiver.requests]
    assert sorted(events) == sorted(
        [
            ("client_action.opened", "call-1"),
            ("client_action.opened", "call-2"),
            ("client_action.decided", "call-1"),
            ("client_action.completed", "call-2"),
        ]
    )
    decided_body = next(r["body"] for r in receiver.requests if r["body"]["type"] == "client_action.decided")
    # The whole ClientAction, so a client application can act on it instead of polling.
    assert decided_body["data"]["clientAction"]["status"] == "approved"
    assert decided_body["data"]["clientAction"]["resolvedBy"] == "api key: tests (decide)"


def test_an_expired_action_is_announced_by_the_sweep(api, session_id, webhook, receiver, time_machine):
    answer = api.post(
        f"sessions/{session_id}/client-actions",
        {"callId": "call-1", "name": "wait", "arguments": {}, "expiresAt": "2099-01-01T00:00:00Z"},
    )
    assert answer.status_code == 201
    time_machine.move_to("2099-01-01T00:00:01Z")
    assert client_actions.sweep_expired() == 1
    deliver_due()
    assert [r["body"]["type"] for r in receiver.requests] == ["client_action.opened", "client_action.expired"]


def test_a_change_that_rolls_back_leaves_nothing_to_send(api, session_id, webhook, receiver):
    class RolledBack(Exception):
        pass

    with pytest.raises(RolledBack), transaction.atomic():
        client_actions.open_action(session_id, call_id="call-1", name="send_email", arguments={})
        assert Delivery.objects.count() == 1
        raise RolledBack
    assert Delivery.objects.count() == 0
    assert deliver_due() == 0
    assert receiver.requests == []


def test_channels_only_get_the_events_agents_and_actions_they_asked_for(admin_api, api, session_id, receiver):
    def channel(name, **fields):
        answer = admin_api.post("channels", {"kind": "webhook", "name": name, "url": receiver.url, **fields})
        assert answer.status_code == 201, answer.content
        return answer.json()["channelId"]

    wanted = channel("wanted", events=["client_action.opened"], agents=["supp*"], actions=["send_*"])
    channel("other agents", events=["client_action.opened"], agents=["billing"])
    channel("other actions", events=["client_action.opened"], actions=["delete_*"])
    channel("other events", events=["client_action.decided"])
    open_action(api, session_id)
    assert list(Delivery.objects.values_list("channel_id", flat=True)) == [wanted]


def test_a_failed_attempt_is_retried_on_schedule_then_delivered(api, session_id, admin_api):
    with TinyServer([(500, {}, {"error": "down"}), (200, {}, {})]) as flaky:
        created = admin_api.post(
            "channels", {"kind": "webhook", "name": "flaky", "url": flaky.url, "events": ["client_action.opened"]}
        ).json()
        open_action(api, session_id)
        deliver_due()
        deliveries = admin_api.get(f"channels/{created['channelId']}/deliveries").json()
        [delivery] = deliveries["items"]
        assert delivery["status"] == "delivered"
        assert [attempt["status"] for attempt in delivery["attempts"]] == [500, 200]
        ids = {request["headers"]["webhook-id"] for request in flaky.requests}
        assert ids == {delivery["webhookId"]}


def test_after_the_last_retry_the_delivery_failed(api, session_id, admin_api):
    with TinyServer([(500, {}, {})] * 4) as broken:
        created = admin_api.post(
            "channels", {"kind": "webhook", "name": "broken", "url": broken.url, "events": ["client_action.opened"]}
        ).json()
        open_action(api, session_id)
        deliver_due()
        [delivery] = admin_api.get(f"channels/{created['channelId']}/deliveries").json()["items"]
        # WEBHOOK_RETRY_DELAYS holds 3 delays: 4 attempts in all.
        assert len(broken.requests) == 4
        assert delivery["status"] == "failed"
        assert delivery["nextAttemptAt"] is None


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_on_429_and_503_is_honoured(api, session_id, admin_api, status):
    with TinyServer([(status, {"Retry-After": "120"}, {})]) as busy:
        created = admin_api.post(
            "channels", {"kind": "webhook", "name": "busy", "url": busy.url, "events": ["client_action.opened"]}
        ).json()
        open_action(api, session_id)
        deliver_due()
        [delivery] = admin_api.get(f"channels/{created['channelId']}/deliveries").json()["items"]
        assert delivery["status"] == "pending"
        row = Delivery.objects.get()
        waited = (row.next_attempt_at - row.attempts.get().at).total_seconds()
        assert 119 <= waited <= 121
        assert len(busy.requests) == 1


def test_410_disables_the_channel(api, session_id, admin_api):
    with TinyServer([(410, {}, {})]) as gone:
        created = admin_api.post(
            "channels", {"kind": "webhook", "name": "gone", "url": gone.url, "events": ["client_action.opened"]}
        ).json()
        open_action(api, session_id, "call-1")
        deliver_due()
        assert Channel.objects.get().enabled is False
        assert admin_api.get("channels").json()["items"][0]["enabled"] is False
        open_action(api, session_id, "call-2")
        assert Delivery.objects.count() == 1
        assert Delivery.objects.get().status == "failed"
        assert created["enabled"] is True


def test_a_delivery_is_sent_again_with_the_same_webhook_id(api, session_id, webhook, receiver, admin_api):
    open_action(api, session_id)
    deliver_due()
    [delivery] = admin_api.get(f"channels/{webhook['channelId']}/deliveries").json()["items"]
    again = admin_api.post(f"channels/{webhook['channelId']}/deliveries/{delivery['deliveryId']}/retry")
    assert again.status_code == 202
    assert again.json()["status"] == "pending"
    deliver_due()
    first, second = receiver.requests
    assert first["headers"]["webhook-id"] == second["headers"]["webhook-id"] == delivery["webhookId"]
    assert first["body"] == second["body"]
    verified(webhook, second)


def test_a_receiver_that_does_not_answer_is_retried(api, session_id, admin_api):
    with TinyServer(["drop", (200, {}, {})]) as dropping:
        admin_api.post(
            "channels", {"kind": "webhook", "name": "drops", "url": dropping.url, "events": ["client_action.opened"]}
        )
        open_action(api, session_id)
        deliver_due()
        attempts = list(Delivery.objects.get().attempts.values_list("status", flat=True))
        assert attempts == [None, 200]


def test_after_a_rotation_both_secrets_verify_for_24_hours(api, session_id, webhook, receiver, admin_api, time_machine):
    rotated = admin_api.post(f"channels/{webhook['channelId']}/rotate-secret")
    assert rotated.status_code == 200
    new_secret = rotated.json()["secret"]
    assert new_secret.startswith("whsec_") and new_secret != webhook["secret"]
    assert "secret" not in admin_api.get("channels").json()["items"][0]
    open_action(api, session_id, "call-1")
    deliver_due()
    verified(webhook, receiver.requests[0])
    verified({"secret": new_secret}, receiver.requests[0])
    time_machine.move_to(datetime.now(UTC) + timedelta(hours=24, seconds=1))
    open_action(api, session_id, "call-2")
    deliver_due()
    raw = json.dumps(receiver.requests[1]["body"], ensure_ascii=False, separators=(",", ":"))
    Webhook(new_secret).verify(raw, {**receiver.requests[1]["headers"]})
    with pytest.raises(WebhookVerificationError):
        Webhook(webhook["secret"]).verify(raw, receiver.requests[1]["headers"])

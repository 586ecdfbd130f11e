"""Every change of a channel, over the API, on the channels page and in the admin, and every delivery sent
again, leaves one audit row in the channel's project, saying who did it and what they set: the values of the
fields that changed, and of a secret only its name."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.test import Client
from django.urls import reverse

from historyhub.audit.models import AuditEntry
from historyhub.lib.errors import NotFound
from historyhub.notifications import channels
from historyhub.notifications.models import Channel, Delivery
from tests.notifications.conftest import EVERY_EVENT
from tests.support.actors import make_member, post
from tests.support.readers import assert_error

pytestmark = pytest.mark.django_db
ADMIN_KEY = "api key: tests (admin)"


def rows():
    return list(AuditEntry.objects.order_by("pk").values_list("project_id", "actor", "action", "target"))


def details(action):
    return [entry.details for entry in AuditEntry.objects.filter(action=action).order_by("pk")]


def audit_text():
    return " ".join(AuditEntry.objects.values_list("details_json", flat=True))


def slack_body(**fields):
    return {
        "kind": "slack",
        "name": "approvals",
        "events": ["client_action.opened", "client_action.decided"],
        "slackChannel": "C42",
        **fields,
    }


def failed_delivery(api, session_id):
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "issue_refund", "arguments": {}})
    delivery = Delivery.objects.get()
    Delivery.objects.filter(pk=delivery.pk).update(status="failed", next_attempt_at=None)
    return delivery


def test_an_admin_keys_changes_of_a_webhook_are_recorded_without_its_secrets(admin_api, api, session_id, receiver):
    created = admin_api.post(
        "channels", {"kind": "webhook", "name": "ops", "events": ["client_action.opened"], "url": receiver.url}
    ).json()
    channel_id = created["channelId"]
    admin_api.patch(f"channels/{channel_id}", {"enabled": False, "events": EVERY_EVENT, "name": "ops"})
    admin_api.patch(f"channels/{channel_id}", {"enabled": True})
    rotated = admin_api.post(f"channels/{channel_id}/rotate-secret").json()
    delivery = failed_delivery(api, session_id)
    assert admin_api.post(f"channels/{channel_id}/deliveries/{delivery.pk}/retry").status_code == 202
    assert admin_api.delete(f"channels/{channel_id}").status_code == 204

    assert rows() == [
        ("default", ADMIN_KEY, "channel.created", channel_id),
        ("default", ADMIN_KEY, "channel.changed", channel_id),
        ("default", ADMIN_KEY, "channel.changed", channel_id),
        ("default", ADMIN_KEY, "channel.secret_rotated", channel_id),
        ("default", ADMIN_KEY, "delivery.sent_again", str(delivery.pk)),
        ("default", ADMIN_KEY, "channel.deleted", channel_id),
    ]
    assert details("channel.created") == [
        {
            "kind": "webhook",
            "name": "ops",
            "events": ["client_action.opened"],
            "agents": [],
            "actions": [],
            "enabled": True,
            "url": receiver.url,
            "secrets": ["secret"],
        }
    ]
    # The name was sent unchanged: only what changed is told.
    assert details("channel.changed") == [
        {"name": "ops", "events": EVERY_EVENT, "enabled": False},
        {"name": "ops", "enabled": True},
    ]
    assert details("channel.secret_rotated") == [{"name": "ops", "secrets": ["secret"]}]
    assert details("delivery.sent_again") == [
        {
            "channelId": channel_id,
            "channelName": "ops",
            "event": "client_action.opened",
            "webhookId": delivery.webhook_id,
        }
    ]
    assert details("channel.deleted") == [{"name": "ops", "kind": "webhook"}]
    assert created["secret"] not in audit_text() and rotated["secret"] not in audit_text()


def test_a_slack_channels_rows_name_its_slack_channel_and_no_secret(admin_api):
    channel_id = admin_api.post("channels", slack_body()).json()["channelId"]
    admin_api.patch(f"channels/{channel_id}", {"slackChannel": "C43"})

    created, changed = details("channel.created") + details("channel.changed")
    assert created == {
        "kind": "slack",
        "name": "approvals",
        "events": ["client_action.opened", "client_action.decided"],
        "agents": [],
        "actions": [],
        "enabled": True,
        "slackChannel": "C42",
    }
    assert changed == {"name": "approvals", "slackChannel": "C43"}


def test_a_patch_that_changes_nothing_or_is_refused_records_nothing(admin_api):
    channel_id = admin_api.post("channels", slack_body()).json()["channelId"]

    assert admin_api.patch(f"channels/{channel_id}", {"name": "approvals", "slackChannel": "C42"}).status_code == 200
    assert_error(admin_api.patch(f"channels/{channel_id}", {"slackToken": "xoxb-mine"}), 400, "invalid_input")
    assert_error(admin_api.patch(f"channels/{channel_id}", {"url": "https://example.com/"}), 400, "invalid_input")
    assert_error(admin_api.post(f"channels/{channel_id}/rotate-secret"), 400, "invalid_input")

    assert [action for _, _, action, _ in rows()] == ["channel.created"]


def test_deleting_a_channel_someone_deleted_meanwhile_records_nothing(admin_api):
    channel_id = admin_api.post("channels", slack_body()).json()["channelId"]
    stale = Channel.objects.get(pk=channel_id)
    channels.delete(Channel.objects.get(pk=channel_id), actor="ada")

    with pytest.raises(NotFound):
        channels.delete(stale, actor="ben")

    assert [(actor, action) for _, actor, action, _ in rows()] == [
        (ADMIN_KEY, "channel.created"),
        ("ada", "channel.deleted"),
    ]


def test_a_project_admins_changes_on_the_channels_page_are_recorded_as_theirs(api, session_id, receiver):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_member("boss", "admin"))
    url = reverse("dashboard:channels", args=["default"])
    data = {"action": "create", "kind": "webhook", "name": "ops", "events": ["client_action.opened"]}
    assert post(client, url, {**data, "url": receiver.url}).status_code == 200
    channel = Channel.objects.get()
    delivery = failed_delivery(api, session_id)
    post(client, url, {"action": "toggle", "channel": channel.pk})
    post(client, url, {"action": "retry", "channel": channel.pk, "delivery": delivery.pk})
    post(client, url, {"action": "delete", "channel": channel.pk})

    assert rows() == [
        ("default", "boss", "channel.created", channel.pk),
        ("default", "boss", "channel.changed", channel.pk),
        ("default", "boss", "delivery.sent_again", str(delivery.pk)),
        ("default", "boss", "channel.deleted", channel.pk),
    ]
    assert details("channel.changed") == [{"name": "ops", "enabled": False}]
    assert channel.secret not in audit_text()


@pytest.fixture
def operator_client(db):
    operator = make_member("root", "admin")
    operator.is_staff = operator.is_superuser = True
    operator.save()
    client = Client()
    client.force_login(operator)
    return client


def test_an_operators_changes_in_the_admin_are_recorded_as_theirs(operator_client, api, session_id):
    add = reverse("admin:notifications_channel_add")
    form = {
        "name": "approvals",
        "events": ["client_action.opened", "client_action.decided"],
        "agents": "",
        "actions": "",
        "enabled": "on",
        "url": "",
        "slack_channel": "C42",
    }
    assert operator_client.post(add, {**form, "project": "default", "kind": "slack"}).status_code == 302
    channel = Channel.objects.get()
    change = reverse("admin:notifications_channel_change", args=[channel.pk])
    page = operator_client.get(change).content.decode()
    # A Slack channel has no token or signing secret of its own: the Slack app is the installation's.
    assert "slack_token" not in page and "slack_signing_secret" not in page
    # The project and the kind cannot change.
    assert operator_client.post(change, {**form, "name": "slack approvals", "kind": "webhook"}).status_code == 302
    saved = Channel.objects.get()
    assert (saved.name, saved.kind, saved.slack_channel) == ("slack approvals", "slack", "C42")
    assert LogEntry.objects.get(action_flag=CHANGE).get_change_message() == "Changed Name."
    delivery = failed_delivery(api, session_id)
    deliveries = reverse("admin:notifications_delivery_changelist")
    operator_client.post(deliveries, {"action": "send_again", "_selected_action": [delivery.pk]})
    delete = reverse("admin:notifications_channel_delete", args=[channel.pk])
    assert operator_client.post(delete, {"post": "yes"}).status_code == 302

    assert rows() == [
        ("default", "root", "channel.created", channel.pk),
        ("default", "root", "channel.changed", channel.pk),
        ("default", "root", "delivery.sent_again", str(delivery.pk)),
        ("default", "root", "channel.deleted", channel.pk),
    ]
    assert details("channel.changed") == [{"name": "slack approvals"}]
    assert not Channel.objects.exists()


def test_the_admins_bulk_delete_records_each_channel(operator_client, admin_api):
    first = admin_api.post("channels", slack_body(name="one")).json()["channelId"]
    second = admin_api.post("channels", slack_body(name="two")).json()["channelId"]
    changelist = reverse("admin:notifications_channel_changelist")

    answer = operator_client.post(
        changelist, {"action": "delete_selected", "_selected_action": [first, second], "post": "yes"}
    )

    assert answer.status_code == 302 and not Channel.objects.exists()
    assert sorted(
        target for _, actor, action, target in rows() if action == "channel.deleted" and actor == "root"
    ) == sorted([first, second])

"""Webhook signing secrets and Slack credentials are stored encrypted with FIELD_ENCRYPTION_KEYS: a database dump
holds none of them, webhooks still verify with the secret shown at creation, keys rotate with
`rotate_encryption_keys`, and the upgrade encrypts what was stored before (docs/configuration.md, "Encryption at
rest")."""

import json
import sqlite3
import subprocess
from datetime import timedelta
from io import StringIO

import pytest
from cryptography.fernet import Fernet, InvalidToken
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from historyhub.apikeys.models import ApiKey
from historyhub.encryption import UnreadableValue, encrypt_column
from historyhub.notifications.models import Attempt, Channel, Delivery, SlackApp
from historyhub.projects import administration
from tests.notifications.conftest import EVERY_EVENT, deliver_due
from tests.support.actors import ApiClient
from tests.support.migrations import latest, migrate
from tests.support.servers import database_url

SECRETS = ("secret", "previous_secret")
# The columns the upgrade that brought encryption found: the Slack credentials were per channel then.
SECRETS_THEN = (*SECRETS, "slack_token", "slack_signing_secret")
SLACK_TOKEN = "xoxb-1234567890-abcdefghijklmnop"
SLACK_SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def stored(channel_id, columns=SECRETS):
    """The secret columns of a channel as the database holds them, read with SQL below the models."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(columns)} FROM notifications_channel WHERE id = %s", [channel_id])
        return dict(zip(columns, cursor.fetchone(), strict=True))


def stored_slack_app():
    """The installation's Slack credentials as the database holds them."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT bot_token, signing_secret FROM notifications_slackapp")
        return cursor.fetchone()


def project_apis(project_id):
    """A new project's admin and write clients."""
    administration.create_project(project_id, project_id.title())
    admin = ApiClient(ApiKey.issue(f"{project_id} admin", "admin", project=project_id)[1])
    writer = ApiClient(ApiKey.issue(f"{project_id} agent", "write", project=project_id)[1])
    return admin, writer


def open_action(api, session_id, call_id):
    answer = api.post(f"sessions/{session_id}/client-actions", {"callId": call_id, "name": "send", "arguments": {}})
    assert answer.status_code == 201, answer.content
    return answer.json()


def verified(secret, request):
    raw = json.dumps(request["body"], ensure_ascii=False, separators=(",", ":"))
    return Webhook(secret).verify(raw, request["headers"])


def rotate_keys():
    out = StringIO()
    call_command("rotate_encryption_keys", stdout=out)
    return out.getvalue()


def database_dump():
    """The whole test database as its own tool dumps it: pg_dump on PostgreSQL, sqlite3's dump on SQLite."""
    if connection.vendor == "postgresql":
        return subprocess.run(
            ["pg_dump", "--no-password", database_url()], capture_output=True, text=True, check=True
        ).stdout
    with sqlite3.connect(connection.settings_dict["NAME"]) as dump:
        return "\n".join(dump.iterdump())


@pytest.mark.django_db(transaction=True)
def test_a_database_dump_holds_no_webhook_secret_and_no_slack_credential(admin_api, receiver):
    staging_admin, _ = project_apis("staging")
    webhook = staging_admin.post(
        "channels", {"kind": "webhook", "name": "ops hook", "events": EVERY_EVENT, "url": receiver.url}
    ).json()
    first_secret = webhook["secret"]
    rotated = staging_admin.post(f"channels/{webhook['channelId']}/rotate-secret")
    assert rotated.status_code == 200
    secret = rotated.json()["secret"]
    slack = admin_api.post(
        "channels",
        {"kind": "slack", "name": "approvals room", "events": ["client_action.opened"], "slackChannel": "C123"},
    )
    assert slack.status_code == 201
    # The Slack credentials are the installation's, kept by operators.
    SlackApp.objects.create(bot_token=SLACK_TOKEN, signing_secret=SLACK_SIGNING_SECRET)

    columns = stored(webhook["channelId"])
    assert all(value.startswith("fernet:") for value in (*columns.values(), *stored_slack_app())), columns
    assert SlackApp.objects.get().bot_token == SLACK_TOKEN
    dump = database_dump()
    # The dump is of this database, with the channels in it.
    assert webhook["channelId"] in dump and slack.json()["channelId"] in dump and "approvals room" in dump
    for clear in (first_secret, secret, SLACK_TOKEN, SLACK_SIGNING_SECRET):
        assert clear not in dump
    # Not even the secrets' random part, without its whsec_ prefix.
    assert first_secret.removeprefix("whsec_") not in dump and secret.removeprefix("whsec_") not in dump
    assert columns["secret"] in dump  # what the dump holds instead


@pytest.mark.django_db
def test_a_webhook_verifies_with_the_secret_shown_at_creation_before_and_after_the_keys_rotate(receiver, settings):
    staging_admin, staging = project_apis("staging")
    assert staging.post("sessions", {"sessionId": "s1", "agent": "support"}).status_code == 201
    webhook = staging_admin.post(
        "channels", {"kind": "webhook", "name": "ops", "events": ["client_action.opened"], "url": receiver.url}
    ).json()
    old_key = settings.FIELD_ENCRYPTION_KEYS[0]
    open_action(staging, "s1", "call-1")
    assert deliver_due() == 1
    assert verified(webhook["secret"], receiver.requests[0])["data"]["callId"] == "call-1"
    before = stored(webhook["channelId"])["secret"]
    Fernet(old_key).decrypt(before.removeprefix("fernet:").encode())

    new_key = Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEYS = [new_key, old_key]
    printed = rotate_keys()
    assert "notifications.Channel.secret: 1 re-encrypted" in printed
    assert "notifications.Channel.previous_secret: 0 re-encrypted" in printed
    assert "1 value re-encrypted with the first key." in printed
    after = stored(webhook["channelId"])["secret"]
    assert after.startswith("fernet:") and after != before
    assert Fernet(new_key).decrypt(after.removeprefix("fernet:").encode()).decode() == webhook["secret"]
    with pytest.raises(InvalidToken):
        Fernet(old_key).decrypt(after.removeprefix("fernet:").encode())

    # The old key dropped: the secret still signs, and the receiver verifies with what it was shown.
    settings.FIELD_ENCRYPTION_KEYS = [new_key]
    open_action(staging, "s1", "call-2")
    assert deliver_due() == 1
    assert verified(webhook["secret"], receiver.requests[1])["data"]["callId"] == "call-2"


@pytest.mark.django_db
def test_a_secret_encrypted_under_an_old_key_reads_while_that_key_is_listed(admin_api, receiver, settings):
    old_key = settings.FIELD_ENCRYPTION_KEYS[0]
    body = {"kind": "webhook", "events": ["client_action.opened"], "url": receiver.url}
    earlier = admin_api.post("channels", {**body, "name": "earlier"}).json()
    new_key = Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEYS = [new_key, old_key]

    assert Channel.objects.get(pk=earlier["channelId"]).secret == earlier["secret"]
    later = admin_api.post("channels", {**body, "name": "later"}).json()
    # New values are encrypted with the first key.
    Fernet(new_key).decrypt(stored(later["channelId"])["secret"].removeprefix("fernet:").encode())
    # A webhook's rotation works under the new keys: the new secret shown once, the old one kept beside it.
    rotated = admin_api.post(f"channels/{later['channelId']}/rotate-secret").json()
    channel = Channel.objects.get(pk=later["channelId"])
    assert (channel.secret, channel.previous_secret) == (rotated["secret"], later["secret"])


@pytest.mark.django_db
def test_a_secret_whose_key_was_dropped_fails_its_own_deliveries_only_with_a_clear_error(
    api, session_id, admin_api, receiver, settings
):
    old_key = settings.FIELD_ENCRYPTION_KEYS[0]
    body = {"kind": "webhook", "events": ["client_action.opened"], "url": receiver.url}
    orphaned = admin_api.post("channels", {**body, "name": "orphaned"}).json()
    new_key = Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEYS = [new_key]
    kept = admin_api.post("channels", {**body, "name": "kept"}).json()

    # The agent's write that announces the event loads both channels: it is not held up.
    open_action(api, session_id, "call-1")
    deliver_due()
    [request] = receiver.requests
    verified(kept["secret"], request)
    # The other's attempts (retried on the tests' schedule of no delays) fail, each saying why.
    failed = Delivery.objects.get(channel_id=orphaned["channelId"])
    assert failed.status == "failed"
    excerpts = [attempt.excerpt for attempt in Attempt.objects.filter(delivery=failed)]
    assert len(excerpts) == len(settings.WEBHOOK_RETRY_DELAYS) + 1
    for excerpt in excerpts:
        assert "notifications_channel.secret was encrypted with a key FIELD_ENCRYPTION_KEYS does not list" in excerpt
    assert admin_api.get("channels").status_code == 200
    with pytest.raises(UnreadableValue):
        Channel.objects.get(pk=orphaned["channelId"]).secret  # noqa: B018 - reading it is the test
    # Rotating needs every key still in use: it says which column it cannot read, and changes nothing there.
    unreadable = stored(orphaned["channelId"])["secret"]
    with pytest.raises(CommandError, match="notifications_channel.secret was encrypted with a key"):
        rotate_keys()
    assert stored(orphaned["channelId"])["secret"] == unreadable
    # The key listed again, the channel's deliveries verify with the secret it was shown.
    settings.FIELD_ENCRYPTION_KEYS = [new_key, old_key]
    assert admin_api.post(f"channels/{orphaned['channelId']}/deliveries/{failed.pk}/retry").status_code == 202
    assert deliver_due() == 1
    assert verified(orphaned["secret"], receiver.requests[1])["data"]["callId"] == "call-1"


@pytest.mark.django_db
def test_a_value_stored_unencrypted_is_refused_when_read_and_encrypted_by_the_rotation(admin_api, receiver):
    created = admin_api.post(
        "channels", {"kind": "webhook", "name": "ops", "events": ["client_action.opened"], "url": receiver.url}
    ).json()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE notifications_channel SET secret = %s", ["whsec_written-around-the-model"])

    with pytest.raises(UnreadableValue, match="notifications_channel.secret is stored unencrypted"):
        Channel.objects.get(pk=created["channelId"]).secret  # noqa: B018 - reading it is the test
    assert "notifications.Channel.secret: 1 re-encrypted" in rotate_keys()
    assert stored(created["channelId"])["secret"].startswith("fernet:")
    assert Channel.objects.get(pk=created["channelId"]).secret == "whsec_written-around-the-model"


@pytest.mark.django_db(transaction=True)
def test_the_upgrade_encrypts_the_secrets_stored_before_says_how_many_and_its_reversal_decrypts_them(capsys):
    before = [("notifications", "0001_outbox")]
    encrypted = [("notifications", "0002_secrets_encrypted_at_rest")]
    OldChannel = migrate(before).get_model("notifications", "Channel")
    until = timezone.now() + timedelta(hours=3)
    plain = {
        "ch_webhook": {"secret": "whsec_current", "previous_secret": "whsec_previous", "slack_token": ""},
        "ch_slack": {"slack_token": SLACK_TOKEN, "slack_signing_secret": SLACK_SIGNING_SECRET},
        "ch_email": {},
    }
    made = {"project_id": "default", "previous_secret_until": until}
    OldChannel.objects.create(id="ch_webhook", kind="webhook", name="w", **made, **plain["ch_webhook"])
    OldChannel.objects.create(id="ch_slack", kind="slack", name="s", **made, **plain["ch_slack"])
    OldChannel.objects.create(id="ch_email", kind="email", name="e", **made)
    capsys.readouterr()

    EncryptedChannel = migrate(encrypted).get_model("notifications", "Channel")

    assert "notifications_channel: 4 stored values encrypted" in capsys.readouterr().out
    for channel_id, values in plain.items():
        raw, channel = stored(channel_id, SECRETS_THEN), EncryptedChannel.objects.get(pk=channel_id)
        for column in SECRETS_THEN:
            value = values.get(column, "")
            assert getattr(channel, column) == value
            assert raw[column].startswith("fernet:") if value else raw[column] == ""
            assert value == "" or value not in raw[column]
    assert Channel.objects.get(pk="ch_webhook").signing_secrets(timezone.now()) == ["whsec_current", "whsec_previous"]
    # Run again, it finds nothing left to encrypt: a value is never encrypted twice.
    assert sum(encrypt_column(connection, "notifications_channel", column) for column in SECRETS_THEN) == 0

    migrate(before)
    assert stored("ch_webhook", SECRETS_THEN) == {
        "secret": "whsec_current",
        "previous_secret": "whsec_previous",
        "slack_token": "",
        "slack_signing_secret": "",
    }
    assert stored("ch_slack", SECRETS_THEN)["slack_token"] == SLACK_TOKEN
    migrate(latest())
    # The Slack credentials went on to the installation's Slack app, still encrypted.
    assert SlackApp.objects.get().bot_token == SLACK_TOKEN
    assert all(value.startswith("fernet:") for value in stored_slack_app())

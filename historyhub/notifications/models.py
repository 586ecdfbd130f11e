"""Channels, the outbox and its attempts (docs/notifications.md).

A ``Delivery`` is one event for one channel: an outbox row written in the same
transaction as the change it announces (``events.announce``, the receiver of ``history.action_events``), with its body
fixed then, so every attempt sends the same bytes under the same ``webhook-id``.
The worker (``outbox``) claims due rows for a lease, sends them through the
channel's transport and records an ``Attempt`` for each try.
"""

import base64
import secrets

from django.conf import settings
from django.db import models
from ulid import ULID

from historyhub.encryption import EncryptedTextField
from historyhub.history.action_events import Event
from historyhub.lib import jsonvalues
from historyhub.projects.models import Project


class ChannelKind(models.TextChoices):
    WEBHOOK = "webhook"
    EMAIL = "email"
    SLACK = "slack"


def new_channel_id():
    return f"ch_{ULID()}"


def new_webhook_id():
    return f"msg_{ULID()}"


def new_secret():
    """A Standard Webhooks secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


class Channel(models.Model):
    id = models.CharField(primary_key=True, max_length=40, default=new_channel_id, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="channels")
    kind = models.CharField(max_length=16, choices=ChannelKind.choices)
    name = models.CharField(max_length=200)
    events_json = models.TextField(default="[]", help_text="The events it wants, a JSON list.")
    agents_json = models.TextField(default="[]", help_text="Globs of agents; empty: every agent.")
    actions_json = models.TextField(default="[]", help_text="Globs of action names; empty: every action.")
    enabled = models.BooleanField(default=True)
    url = models.CharField(max_length=2000, blank=True, default="", help_text="Webhooks: where events are POSTed.")
    # The secrets are stored encrypted (historyhub.encryption; docs/configuration.md, "Encryption at rest").
    secret = EncryptedTextField(max_length=100, blank=True, default="", help_text="Webhooks: the signing secret.")
    # After a rotation the old secret signs too, until then, so receivers can switch without losing events.
    previous_secret = EncryptedTextField(max_length=100, blank=True, default="")
    previous_secret_until = models.DateTimeField(null=True, blank=True)
    # Slack: the Slack channel it posts in, with the installation's Slack app (``SlackApp``).
    slack_channel = models.CharField(max_length=200, blank=True, default="")
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["project", "enabled"], name="channel_by_project")]

    def __str__(self):
        return f"{self.name} ({self.kind})"

    def signing_secrets(self, now):
        """The secrets every request is signed with at ``now``: the current one, and the previous for 24 hours."""
        if self.previous_secret and self.previous_secret_until and now < self.previous_secret_until:
            return [self.secret, self.previous_secret]
        return [self.secret]

    @property
    def events(self):
        return jsonvalues.loads(self.events_json)

    @property
    def agents(self):
        return jsonvalues.loads(self.agents_json)

    @property
    def actions(self):
        return jsonvalues.loads(self.actions_json)


# "Send a test event" (``trial_event``): one delivery to one channel, whatever events it asks for. Not an Event a
# channel subscribes to, so it is a delivery's event only.
TEST_EVENT = "channel.test"
DELIVERY_EVENTS = [*Event.choices, (TEST_EVENT, "Test")]


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


class Delivery(models.Model):
    """One event for one channel: the outbox row."""

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40, choices=DELIVERY_EVENTS)
    webhook_id = models.CharField(max_length=40, default=new_webhook_id, editable=False)
    # The webhook body as sent (every attempt sends these bytes); email and Slack read it too.
    body = models.TextField()
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    next_attempt_at = models.DateTimeField(null=True, blank=True, help_text="Empty once delivered or failed.")
    attempt_count = models.PositiveIntegerField(default=0)
    # A worker that claimed the row holds it until then; a killed worker's row is due again after it.
    claimed_until = models.DateTimeField(null=True, blank=True)
    claim = models.CharField(max_length=40, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        indexes = [
            # The worker's claim: pending rows by when they are due.
            models.Index(fields=["status", "next_attempt_at"], name="delivery_due"),
            models.Index(fields=["channel", "-created_at"], name="delivery_by_channel"),
        ]

    def __str__(self):
        return f"{self.event} → {self.channel_id} ({self.status})"

    @property
    def payload(self):
        return jsonvalues.loads(self.body)


class Attempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    at = models.DateTimeField()
    status = models.PositiveIntegerField(null=True, blank=True, help_text="The HTTP status received; empty if none.")
    duration_ms = models.PositiveIntegerField()
    # A bounded excerpt of the answer or the error, for the person reading why it failed.
    excerpt = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["at", "id"]


class EmailPreference(models.TextChoices):
    EVERY_EVENT = "every", "every event"
    HOURLY_DIGEST = "digest", "an hourly digest"
    NONE = "none", "none"


class NotificationSettings(models.Model):
    """A person's own choice of how notification email reaches them."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings"
    )
    email = models.CharField(max_length=16, choices=EmailPreference.choices, default=EmailPreference.EVERY_EVENT)


class SlackMessage(models.Model):
    """The Slack message that shows an action in a Slack channel, so later events update it in place."""

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="slack_messages")
    session_key = models.CharField(max_length=401)
    call_id = models.CharField(max_length=200)
    slack_channel = models.CharField(max_length=200)
    ts = models.CharField(max_length=40, help_text="Slack's id of the message.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["channel", "session_key", "call_id"], name="slack_message_per_action")
        ]


class SlackApp(models.Model):
    """The installation's Slack app, as operators keep it in the admin: its bot token and signing secret, used
    where the environment sets none (``slack_app.credentials``). One row at most: its id is always 1."""

    ONLY = 1

    id = models.PositiveSmallIntegerField(primary_key=True, default=ONLY, editable=False)
    # Stored encrypted (historyhub.encryption), as every secret is.
    bot_token = EncryptedTextField(blank=True, default="", help_text="xoxb-…; SLACK_BOT_TOKEN, when set, wins.")
    signing_secret = EncryptedTextField(
        blank=True, default="", help_text="Verifies Slack's requests; SLACK_SIGNING_SECRET, when set, wins."
    )

    class Meta:
        verbose_name = "Slack app"
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="slack_app_is_one_row")]

    def __str__(self):
        return "The installation's Slack app"


class SlackUserLink(models.Model):
    """A Slack user (a workspace's user id) acting as a HistoryHub person: their clicks decide as that person does
    on the dashboard. Made only by the person confirming a one-time link that Slack showed to that Slack user
    alone (``SlackLinkRequest``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="slack_links")
    team_id = models.CharField(max_length=40, help_text="Slack's workspace id, T…")
    slack_user_id = models.CharField(max_length=40, help_text="Slack's user id, U…")
    # How Slack named them when the link was made, for the person's notifications page.
    team_name = models.CharField(max_length=200, blank=True, default="")
    slack_user_name = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team_id", "slack_user_id"], name="slack_user_linked_once")]

    def __str__(self):
        return f"{self.slack_user_id} of {self.team_id} → {self.user}"


class SlackLinkRequest(models.Model):
    """A one-time link offered to a Slack user who is linked to nobody: whoever opens it logged in and confirms
    becomes the person that Slack user acts as. Only the token's hash is kept; one request per Slack user, the
    newest replacing the one before."""

    team_id = models.CharField(max_length=40)
    slack_user_id = models.CharField(max_length=40)
    team_name = models.CharField(max_length=200, blank=True, default="")
    slack_user_name = models.CharField(max_length=200, blank=True, default="")
    token_hash = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the link's token, hex.")
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team_id", "slack_user_id"], name="slack_link_request_per_user")]


class DigestEntry(models.Model):
    """An event waiting for a person's hourly digest mail."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # A delivery sent again (a retry, a worker killed mid-way) adds nobody's entry twice.
            models.UniqueConstraint(fields=["user", "delivery"], name="digest_entry_once")
        ]
        indexes = [models.Index(fields=["sent_at", "created_at"], name="digest_entry_unsent")]

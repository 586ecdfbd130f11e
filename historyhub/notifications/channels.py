"""Channels of a project: made, changed and removed by its admins, over the API, on the settings page and in
the admin, with the same checks (docs/notifications.md, "Managing channels").

Each change is recorded in the audit log here, in its transaction, as ``actor``'s (a person's username or
"api key: <name>"; docs/data.md, "Audit log"): the fields it set, by the API's names, and of a secret only
its name, never its value.
"""

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.history.action_events import Event
from historyhub.lib import jsonvalues
from historyhub.lib.errors import InvalidInput, NotFound
from historyhub.notifications import destinations
from historyhub.notifications.models import Channel, ChannelKind, Delivery, new_secret


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    CHANNEL_CHANGED = "channel.changed"
    CHANNEL_CREATED = "channel.created"
    CHANNEL_DELETED = "channel.deleted"
    CHANNEL_SECRET_ROTATED = "channel.secret_rotated"


MAX_GLOBS = 100
MAX_GLOB_LENGTH = 200
MAX_NAME_LENGTH = 200
MAX_SLACK_CHANNEL_LENGTH = 200
PREVIOUS_SECRET_VALID = timedelta(hours=24)
# The fields the functions here take, and the column each is kept in.
COLUMNS = {
    "name": "name",
    "events": "events_json",
    "agents": "agents_json",
    "actions": "actions_json",
    "enabled": "enabled",
    "url": "url",
    "slack_channel": "slack_channel",
}
FIELDS = tuple(COLUMNS)
# What a new channel of each kind is made with, as its audit row tells it.
OF_EVERY_KIND = ("name", "events", "agents", "actions", "enabled")
MADE_WITH = {
    ChannelKind.WEBHOOK: (*OF_EVERY_KIND, "url", "secret"),
    ChannelKind.EMAIL: OF_EVERY_KIND,
    ChannelKind.SLACK: (*OF_EVERY_KIND, "slack_channel"),
}
# An audit row names these when they are set, never their values.
SECRETS = ("secret",)


def of_project(project_id):
    return Channel.objects.filter(project_id=project_id)


def get(project_id, channel_id):
    channel = of_project(project_id).filter(pk=channel_id).first()
    if channel is None:
        raise NotFound(f"Channel {channel_id!r} was not found.")
    return channel


def delivery(channel, delivery_id):
    found = Delivery.objects.filter(channel=channel, pk=delivery_id).first()
    if found is None:
        raise NotFound(f"Delivery {delivery_id!r} was not found.")
    return found


def create(project_id, kind, *, actor, **fields):
    """A new channel; a webhook gets its secret here, which the caller shows once."""
    if kind not in ChannelKind.values:
        raise InvalidInput(f"kind must be one of {', '.join(ChannelKind.values)}.")
    channel = Channel(project_id=project_id, kind=kind, events_json="[]")
    apply(channel, {"enabled": True, "agents": [], "actions": [], **fields}, creating=True)
    if kind == ChannelKind.WEBHOOK:
        channel.secret = new_secret()
    with transaction.atomic():
        channel.save(force_insert=True)
        audit_log.record(
            project_id, actor, Audited.CHANNEL_CREATED, channel.pk, kind=kind, **told(channel, MADE_WITH[kind])
        )
    return channel


def update(channel, *, actor, **fields):
    """Change the fields given; those whose value changes are saved and recorded, and nothing when none does."""
    before = {field: getattr(channel, column) for field, column in COLUMNS.items()}
    apply(channel, fields, creating=False)
    changed = [field for field, column in COLUMNS.items() if getattr(channel, column) != before[field]]
    if not changed:
        return channel
    columns = [COLUMNS[field] for field in changed]
    if "enabled" in changed and channel.enabled:
        channel.disabled_reason = ""
        columns.append("disabled_reason")
    with transaction.atomic():
        channel.save(update_fields=columns)
        audit_log.record(channel.project_id, actor, Audited.CHANNEL_CHANGED, channel.pk, **told(channel, changed))
    return channel


def rotate_secret(channel, *, actor):
    """A new webhook secret, shown once by the caller; the old one signs too for ``PREVIOUS_SECRET_VALID``."""
    if channel.kind != ChannelKind.WEBHOOK:
        raise InvalidInput("Only webhook channels have a secret.")
    channel.previous_secret, channel.previous_secret_until = channel.secret, timezone.now() + PREVIOUS_SECRET_VALID
    channel.secret = new_secret()
    with transaction.atomic():
        channel.save(update_fields=["secret", "previous_secret", "previous_secret_until"])
        audit_log.record(
            channel.project_id, actor, Audited.CHANNEL_SECRET_ROTATED, channel.pk, **told(channel, ["secret"])
        )
    return channel


def delete(channel, *, actor):
    """Delete the channel with its deliveries; a channel deleted meanwhile is not found, and nothing recorded."""
    with transaction.atomic():
        audit_log.record(
            channel.project_id, actor, Audited.CHANNEL_DELETED, channel.pk, name=channel.name, kind=channel.kind
        )
        if not Channel.objects.filter(pk=channel.pk).delete()[0]:
            raise NotFound(f"Channel {channel.pk!r} was not found.")


def told(channel, fields):
    """What the audit row of a change of ``fields`` says: the channel's name, the values of those fields by the
    API's names, and under ``secrets`` the names of the secrets among them."""
    details = {"name": channel.name}
    secrets = [_wire(field) for field in fields if field in SECRETS]
    details.update({_wire(field): getattr(channel, field) for field in fields if field not in SECRETS})
    if secrets:
        details["secrets"] = secrets
    return details


def apply(channel, fields, creating):
    """Check ``fields`` and set them on ``channel`` (unsaved); 400 invalid_input on the first bad one."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise InvalidInput(f"Unknown channel fields: {', '.join(sorted(unknown))}.")
    if "name" in fields or creating:
        name = fields.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH or "\x00" in name:
            raise InvalidInput(f"name must be 1-{MAX_NAME_LENGTH} characters.")
        channel.name = name
    if "events" in fields or creating:
        channel.events_json = jsonvalues.dumps(_events(fields.get("events")))
    for field in ("agents", "actions"):
        if field in fields:
            setattr(channel, f"{field}_json", jsonvalues.dumps(_globs(fields[field], field)))
    if "enabled" in fields:
        if not isinstance(fields["enabled"], bool):
            raise InvalidInput("enabled must be true or false.")
        channel.enabled = fields["enabled"]
    kind = channel.kind
    if "url" in fields or (creating and kind == ChannelKind.WEBHOOK):
        if kind != ChannelKind.WEBHOOK:
            raise InvalidInput("url belongs to webhook channels only.")
        channel.url = destinations.check_url(fields.get("url"))
    if "slack_channel" in fields or (creating and kind == ChannelKind.SLACK):
        # Only the Slack channel: the Slack app, its token and signing secret, are the installation's.
        if kind != ChannelKind.SLACK:
            raise InvalidInput("slackChannel belongs to slack channels only.")
        value = fields.get("slack_channel")
        if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_SLACK_CHANNEL_LENGTH:
            raise InvalidInput(f"slackChannel must be 1-{MAX_SLACK_CHANNEL_LENGTH} characters.")
        channel.slack_channel = value.strip()


def _events(events):
    if not isinstance(events, list) or not events:
        raise InvalidInput(f"events must be a non-empty list drawn from {', '.join(Event.values)}.")
    unknown = [event for event in events if event not in Event.values]
    if unknown:
        raise InvalidInput(f"events: unknown event {unknown[0]!r}.")
    return sorted(set(events), key=Event.values.index)


def _globs(globs, field):
    if not isinstance(globs, list) or len(globs) > MAX_GLOBS:
        raise InvalidInput(f"{field} must be a list of at most {MAX_GLOBS} globs.")
    for glob in globs:
        if not isinstance(glob, str) or not glob or len(glob) > MAX_GLOB_LENGTH or "\x00" in glob:
            raise InvalidInput(f"{field} holds globs of 1-{MAX_GLOB_LENGTH} characters.")
    return globs


def _wire(field):
    first, *rest = field.split("_")
    return first + "".join(word.capitalize() for word in rest)

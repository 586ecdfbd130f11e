"""The wire of channels and deliveries (docs/notifications.md; docs/api.md, "Managing a project as code")."""

from typing import TYPE_CHECKING, Literal, TypeAlias

from ninja import Field, Schema
from pydantic import ConfigDict

from historyhub.history.action_events import Event
from historyhub.lib.schemas import Identifier, Out, Page, Text, Time, example

# The events as the contract lists them (an enum of strings, built from the vocabulary at run time); the type
# checker reads them as the strings they are.
if TYPE_CHECKING:
    EventName: TypeAlias = str
else:
    EventName = Literal[tuple(Event.values)]
Glob = Identifier


class ChannelFields(Schema):
    # A field the contract does not name is refused, not ignored: a Slack channel's token or signing secret of
    # old included (the Slack app is the installation's; docs/notifications.md, "Slack").
    model_config = ConfigDict(extra="forbid")

    name: Identifier | None = Field(None, description="1-200 characters.")
    events: list[EventName] | None = Field(None, max_length=len(Event.values), description="The events it wants.")
    agents: list[Glob] | None = Field(None, max_length=100, description="Globs of agents; empty: every agent.")
    actions: list[Glob] | None = Field(None, max_length=100, description="Globs of action names; empty: every one.")
    enabled: bool | None = None
    url: Text | None = Field(
        None, max_length=2000, description="Webhooks: an http(s) URL on a public address (400 otherwise)."
    )
    slackChannel: Text | None = Field(
        None,
        max_length=200,
        description="Slack: the channel id to post in, with the installation's Slack app (its operators' settings).",
    )


class ChannelIn(ChannelFields):
    model_config = example(
        {
            "kind": "email",
            "name": "approvers by email",
            "events": ["client_action.opened", "client_action.decided"],
            "actions": ["issue_*"],
        }
    )

    kind: Literal["webhook", "email", "slack"]
    name: Identifier = Field(description="1-200 characters.")
    events: list[EventName] = Field(min_length=1, max_length=len(Event.values), description="The events it wants.")


class ChannelPatch(ChannelFields):
    model_config = example({"enabled": False})


class ChannelOut(Out):
    channelId: str = Field(validation_alias="id")
    kind: str
    name: str
    events: list[str]
    agents: list[str]
    actions: list[str]
    enabled: bool
    url: str | None = None
    slackChannel: str | None = None
    createdAt: Time

    @staticmethod
    def resolve_url(channel):
        return channel.url or None

    @staticmethod
    def resolve_slack_channel(channel):
        return channel.slack_channel or None


class ChannelCreated(ChannelOut):
    secret: str | None = Field(None, description="The webhook's whsec_ secret: in this answer only.")

    @staticmethod
    def resolve_secret(channel):
        return channel.secret or None


class ChannelList(Schema):
    items: list[ChannelOut]


class AttemptOut(Out):
    at: Time
    status: int | None = Field(description="The HTTP status received; null when none came.")
    durationMs: int


class DeliveryOut(Out):
    deliveryId: int = Field(validation_alias="id")
    event: str
    webhookId: str
    status: Literal["pending", "delivered", "failed"]
    attempts: list[AttemptOut]
    nextAttemptAt: Time | None

    @staticmethod
    def resolve_attempts(delivery):
        return list(delivery.attempts.all())


class DeliveryPage(Page):
    items: list[DeliveryOut]

"""The forms of the channels page and of a person's notifications page (docs/notifications.md)."""

from django import forms

from historyhub.history.action_events import Event
from historyhub.notifications.glob_text import words
from historyhub.notifications.models import ChannelKind, EmailPreference


class ChannelSettingsForm(forms.Form):
    """What a channel of any kind is set up with; the fields of its kind go to ``channels``, the others not."""

    name = forms.CharField(max_length=200)
    events = forms.MultipleChoiceField(choices=Event.choices, widget=forms.CheckboxSelectMultiple)
    agents = forms.CharField(
        required=False, max_length=20000, help_text="Globs, separated by spaces; empty: every agent."
    )
    actions = forms.CharField(
        required=False, max_length=20000, help_text="Globs, separated by spaces; empty: every action."
    )
    url = forms.CharField(required=False, max_length=2000, label="URL (webhooks)")
    slack_channel = forms.CharField(
        required=False,
        max_length=200,
        label="Slack channel id",
        help_text="Posted to with the installation's Slack app, which its operators set up.",
    )

    def fields_of(self, kind):
        """The fields ``channels.create`` and ``channels.update`` take, for a channel of ``kind``."""
        data = self.cleaned_data
        fields = {
            "name": data["name"],
            "events": data["events"],
            "agents": words(data["agents"]),
            "actions": words(data["actions"]),
        }
        if kind == ChannelKind.WEBHOOK:
            fields["url"] = data["url"]
        if kind == ChannelKind.SLACK:
            fields["slack_channel"] = data["slack_channel"]
        return fields


class ChannelForm(ChannelSettingsForm):
    """A new channel."""

    kind = forms.ChoiceField(choices=ChannelKind.choices)
    field_order = ["kind"]

    def channel_fields(self):
        return self.fields_of(self.cleaned_data["kind"])


class ChannelEditForm(ChannelSettingsForm):
    """A channel's settings, changed: its kind and project stay; a webhook's secret is the server's own, made
    with the channel and changed only by "Rotate secret", so it is no field here and never shown."""

    enabled = forms.BooleanField(required=False, label="Enabled")

    def __init__(self, channel, *args, **kwargs):
        self.channel = channel
        initial = {
            "name": channel.name,
            "events": channel.events,
            "agents": " ".join(channel.agents),
            "actions": " ".join(channel.actions),
            "url": channel.url,
            "slack_channel": channel.slack_channel,
            "enabled": channel.enabled,
        }
        # Ids of their own: every channel's form is on the one page.
        super().__init__(*args, initial=initial, auto_id=f"edit-{channel.pk}-%s", **kwargs)

    def channel_fields(self):
        return {**self.fields_of(self.channel.kind), "enabled": self.cleaned_data["enabled"]}


class ChannelChoiceForm(forms.Form):
    channel = forms.CharField(max_length=40)


class DeliveryChoiceForm(forms.Form):
    delivery = forms.IntegerField(min_value=1)


class PersonForm(forms.Form):
    email = forms.ChoiceField(choices=EmailPreference.choices, label="Email me", widget=forms.RadioSelect)


class SlackLinkChoiceForm(forms.Form):
    link = forms.IntegerField(min_value=1)

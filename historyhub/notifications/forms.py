"""The forms of the channels page and of a person's notifications page (docs/notifications.md)."""

from django import forms

from historyhub.notifications.event_types import Event
from historyhub.notifications.models import ChannelKind, EmailPreference


def words(text):
    return [word for word in text.replace(",", " ").split() if word]


class ChannelForm(forms.Form):
    kind = forms.ChoiceField(choices=ChannelKind.choices)
    name = forms.CharField(max_length=200)
    events = forms.MultipleChoiceField(choices=Event.choices, widget=forms.CheckboxSelectMultiple)
    agents = forms.CharField(
        required=False, max_length=20000, help_text="Globs, separated by spaces; empty: every agent."
    )
    actions = forms.CharField(
        required=False, max_length=20000, help_text="Globs, separated by spaces; empty: every action."
    )
    url = forms.CharField(required=False, max_length=2000, label="URL (webhooks)")
    slack_channel = forms.CharField(required=False, max_length=500, label="Slack channel id")
    slack_token = forms.CharField(required=False, max_length=500, label="Slack bot token", widget=forms.PasswordInput)
    slack_signing_secret = forms.CharField(
        required=False, max_length=500, label="Slack signing secret", widget=forms.PasswordInput
    )

    def channel_fields(self):
        """The fields ``channels.create`` takes, for the channel's kind only."""
        data = self.cleaned_data
        fields = {
            "name": data["name"],
            "events": data["events"],
            "agents": words(data["agents"]),
            "actions": words(data["actions"]),
        }
        if data["kind"] == ChannelKind.WEBHOOK:
            fields["url"] = data["url"]
        if data["kind"] == ChannelKind.SLACK:
            for name in ("slack_channel", "slack_token", "slack_signing_secret"):
                fields[name] = data[name]
        return fields


class ChannelChoiceForm(forms.Form):
    channel = forms.CharField(max_length=40)


class DeliveryChoiceForm(forms.Form):
    delivery = forms.IntegerField(min_value=1)


class PersonForm(forms.Form):
    email = forms.ChoiceField(choices=EmailPreference.choices, label="Email me", widget=forms.RadioSelect)
    slack_user_id = forms.RegexField(
        regex=r"^[A-Z0-9]{2,40}$",
        required=False,
        label="My Slack user id",
        help_text="In Slack: your profile, ⋮, Copy member ID (U…). Your clicks there decide as you do here.",
    )

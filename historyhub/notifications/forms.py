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
    slack_channel = forms.CharField(
        required=False,
        max_length=200,
        label="Slack channel id",
        help_text="Posted to with the installation's Slack app, which its operators set up.",
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
            fields["slack_channel"] = data["slack_channel"]
        return fields


class ChannelChoiceForm(forms.Form):
    channel = forms.CharField(max_length=40)


class DeliveryChoiceForm(forms.Form):
    delivery = forms.IntegerField(min_value=1)


class PersonForm(forms.Form):
    email = forms.ChoiceField(choices=EmailPreference.choices, label="Email me", widget=forms.RadioSelect)


class SlackLinkChoiceForm(forms.Form):
    link = forms.IntegerField(min_value=1)

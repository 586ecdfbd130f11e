"""Channels and their deliveries in the admin, for operators, with the checks of ``channels`` (the API's and
the settings page's); a new webhook's secret is shown once, in the message after the add."""

from django import forms
from django.contrib import admin, messages

from historyhub.history.errors import DomainError
from historyhub.notifications import channels, outbox
from historyhub.notifications.event_types import Event
from historyhub.notifications.forms import words
from historyhub.notifications.models import Attempt, Channel, ChannelKind, Delivery, SlackUserLink, new_secret


class ChannelForm(forms.ModelForm):
    events = forms.MultipleChoiceField(choices=Event.choices, widget=forms.CheckboxSelectMultiple)
    agents = forms.CharField(required=False, help_text="Globs, separated by spaces; empty: every agent.")
    actions = forms.CharField(required=False, help_text="Globs, separated by spaces; empty: every action.")

    class Meta:
        model = Channel
        fields = ("project", "kind", "name", "enabled", "url", "slack_channel", "slack_token", "slack_signing_secret")
        widgets = {"slack_token": forms.PasswordInput(render_value=True)}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial.update(
                events=self.instance.events,
                agents=" ".join(self.instance.agents),
                actions=" ".join(self.instance.actions),
            )

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind")
        if kind is None or self.errors:
            return cleaned
        self.instance.kind = kind
        fields = {
            "name": cleaned.get("name"),
            "events": cleaned.get("events"),
            "agents": words(cleaned.get("agents", "")),
            "actions": words(cleaned.get("actions", "")),
            "enabled": cleaned.get("enabled", True),
        }
        if kind == ChannelKind.WEBHOOK:
            fields["url"] = cleaned.get("url")
        if kind == ChannelKind.SLACK:
            for name in ("slack_channel", "slack_token", "slack_signing_secret"):
                fields[name] = cleaned.get(name)
        try:
            channels.apply(self.instance, fields, creating=True)
        except DomainError as error:
            raise forms.ValidationError(error.message) from None
        return cleaned


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    form = ChannelForm
    list_display = ("name", "kind", "project", "enabled", "created_at")
    list_filter = ("kind", "enabled", "project")
    search_fields = ("name", "url", "slack_channel")

    def save_model(self, request, obj, form, change):
        shown = None
        if obj.kind == ChannelKind.WEBHOOK and not obj.secret:
            obj.secret = shown = new_secret()
        super().save_model(request, obj, form, change)
        if shown:
            messages.warning(request, f"The webhook's signing secret, shown this once: {shown}")


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    fields = readonly_fields = ("at", "status", "duration_ms", "excerpt")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("event", "channel", "status", "attempt_count", "next_attempt_at", "created_at")
    list_filter = ("status", "event")
    readonly_fields = ("channel", "event", "webhook_id", "body", "status", "next_attempt_at", "attempt_count")
    exclude = ("claimed_until", "claim", "created_at")
    inlines = (AttemptInline,)
    actions = ("send_again",)

    def has_add_permission(self, request):
        return False

    @admin.action(description="Send again (same webhook-id)")
    def send_again(self, request, queryset):
        for delivery in queryset:
            outbox.send_again(delivery)
        self.message_user(request, f"{queryset.count()} deliveries will be sent again.")


@admin.register(SlackUserLink)
class SlackUserLinkAdmin(admin.ModelAdmin):
    list_display = ("slack_user_id", "user")
    search_fields = ("slack_user_id", "user__username")
    autocomplete_fields = ("user",)

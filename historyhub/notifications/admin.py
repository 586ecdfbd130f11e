"""Channels and their deliveries in the admin, for operators. Every change goes through ``channels`` (the API's
and the settings page's functions), with their checks and their audit rows; a new webhook's secret is shown
once, in the message after the add. The installation's Slack app (its bot token and signing secret, never
shown) is kept here too, and Slack links are seen and removed, never made: linking takes the Slack user's proof
(``slack_links``)."""

from django import forms
from django.contrib import admin, messages

from historyhub.history.action_events import Event
from historyhub.lib.errors import DomainError
from historyhub.notifications import channels, outbox
from historyhub.notifications.glob_text import words
from historyhub.notifications.models import Attempt, Channel, ChannelKind, Delivery, SlackApp, SlackUserLink

SLACK_SECRETS = ("bot_token", "signing_secret")
KEEP_SECRET = "Never shown; leave it empty to keep the current one."


class ChannelForm(forms.ModelForm):
    events = forms.MultipleChoiceField(choices=Event.choices, widget=forms.CheckboxSelectMultiple)
    agents = forms.CharField(required=False, help_text="Globs, separated by spaces; empty: every agent.")
    actions = forms.CharField(required=False, help_text="Globs, separated by spaces; empty: every action.")

    class Meta:
        model = Channel
        fields = ("project", "kind", "name", "enabled", "url", "slack_channel")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.channel_fields = {}
        if not self.instance._state.adding:
            self.initial.update(
                events=self.instance.events,
                agents=" ".join(self.instance.agents),
                actions=" ".join(self.instance.actions),
            )

    def clean(self):
        """Check the fields as ``channels`` will when the admin saves them (``channel_fields``)."""
        cleaned = super().clean()
        adding = self.instance._state.adding
        kind = cleaned.get("kind") if adding else self.instance.kind
        if kind is None or self.errors:
            return cleaned
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
            fields["slack_channel"] = cleaned.get("slack_channel")
        try:
            channels.apply(Channel(kind=kind), fields, creating=adding)
        except DomainError as error:
            raise forms.ValidationError(error.message) from None
        self.channel_fields = fields
        return cleaned


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    form = ChannelForm
    fields = (
        "project",
        "kind",
        "name",
        "events",
        "agents",
        "actions",
        "enabled",
        "url",
        "slack_channel",
    )
    list_display = ("name", "kind", "project", "enabled", "created_at")
    list_filter = ("kind", "enabled", "project")
    search_fields = ("name", "url", "slack_channel")

    def get_readonly_fields(self, request, obj=None):
        # A channel stays in its project and of its kind: the fields of another kind would not fit it.
        return ("project", "kind") if obj is not None else ()

    def save_model(self, request, obj, form, change):
        """Saved by ``channels``, which checks and records the change; ``obj`` takes the id of the channel saved,
        for the admin's own history and redirect."""
        actor = request.user.get_username()
        if change:
            saved = channels.update(channels.get(obj.project_id, obj.pk), actor=actor, **form.channel_fields)
        else:
            saved = channels.create(obj.project_id, obj.kind, actor=actor, **form.channel_fields)
            if saved.secret:
                messages.warning(request, f"The webhook's signing secret, shown this once: {saved.secret}")
        obj.pk = saved.pk

    def delete_model(self, request, obj):
        channels.delete(obj, actor=request.user.get_username())

    def delete_queryset(self, request, queryset):
        for channel in queryset:
            channels.delete(channel, actor=request.user.get_username())


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
        for delivery in queryset.select_related("channel"):
            outbox.send_again(delivery, actor=request.user.get_username())
        self.message_user(request, f"{queryset.count()} deliveries will be sent again.")


class SlackAppForm(forms.ModelForm):
    bot_token = forms.CharField(
        required=False, label="Bot token", widget=forms.PasswordInput, help_text=f"xoxb-…. {KEEP_SECRET}"
    )
    signing_secret = forms.CharField(
        required=False, label="Signing secret", widget=forms.PasswordInput, help_text=KEEP_SECRET
    )

    class Meta:
        model = SlackApp
        fields = SLACK_SECRETS

    def clean(self):
        cleaned = super().clean()
        for name in SLACK_SECRETS:
            # A secret is not shown, so an empty field is no change.
            cleaned[name] = (cleaned.get(name) or "").strip() or getattr(self.instance, name)
        return cleaned


@admin.register(SlackApp)
class SlackAppAdmin(admin.ModelAdmin):
    """The installation's one Slack app; SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET, when set, win over it."""

    form = SlackAppForm

    def has_add_permission(self, request):
        return super().has_add_permission(request) and not SlackApp.objects.exists()


@admin.register(SlackUserLink)
class SlackUserLinkAdmin(admin.ModelAdmin):
    list_display = ("slack_user_id", "slack_user_name", "team_id", "team_name", "user", "created_at")
    search_fields = ("slack_user_id", "slack_user_name", "user__username")
    readonly_fields = ("user", "team_id", "slack_user_id", "team_name", "slack_user_name", "created_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

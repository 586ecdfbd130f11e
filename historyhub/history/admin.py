"""The admin: sessions, their item log and timeline, client actions and recorded operations.

Everything derived from the log is read-only here; what may change goes
through the domain functions the API uses, so the projections stay right.
"""

import json

from django import forms
from django.contrib import admin, messages
from django.db.models import Case, IntegerField, Value, When
from django.urls import reverse
from django.utils.html import format_html

from historyhub.approvals.deciders import Decider
from historyhub.approvals.decisions import DONE, WITHOUT_ANSWER
from historyhub.dashboard import batch
from historyhub.history import jsonvalues, sessions, validation
from historyhub.history.errors import InvalidInput
from historyhub.history.models import ClientAction, ClientActionStatus, Item, Operation, Session, TimelineEntry

admin.site.site_header = "HistoryHub administration"
admin.site.site_title = "HistoryHub admin"
admin.site.index_title = "Projects, sessions, client actions and API keys"


def operators_only(request):
    """The admin sees every project at once, so only superusers (the operators) enter it; a project's admins
    manage it on its settings page (docs/projects.md, "The admin")."""
    return request.user.is_active and request.user.is_superuser


admin.site.has_permission = operators_only


def pretty(text):
    """Stored JSON text, indented, in a <pre>; format_html escapes it."""
    if text is None:
        return "—"
    return format_html("<pre>{}</pre>", json.dumps(jsonvalues.loads(text), indent=2, ensure_ascii=False))


def session_link(session_id):
    return format_html('<a href="{}">{}</a>', reverse("admin:history_session_change", args=[session_id]), session_id)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows only the domain writes: shown, never added, changed or deleted here."""

    show_full_result_count = False

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# Sessions ----------------------------------------------------------------------------


class SessionForm(forms.ModelForm):
    metadata_json = forms.CharField(
        label="Metadata",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="A JSON object whose values are strings, numbers, booleans or null.",
    )

    class Meta:
        model = Session
        fields = ["name", "status", "run_status", "metadata_json"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial["metadata_json"] = json.dumps(self.instance.metadata, indent=2, ensure_ascii=False)

    def clean_metadata_json(self):
        try:
            value = json.loads(self.cleaned_data["metadata_json"])
            validation.metadata(value)
        except ValueError:
            raise forms.ValidationError("Metadata must be valid JSON.") from None
        except InvalidInput as error:
            raise forms.ValidationError(error.message) from None
        return value


SESSION_FIELDS = ("project", "session_id", "agent", "name", "status", "run_status", "metadata_json", "dashboard_link")


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    form = SessionForm
    list_display = (
        "session_id",
        "project",
        "name",
        "agent",
        "status",
        "run_status",
        "waiting_count",
        "item_count",
        "updated_at",
    )
    list_filter = ("project", "agent", "status", "run_status")
    search_fields = ("session_id", "name", "agent")
    ordering = ("-updated_at",)
    show_full_result_count = False
    readonly_fields = (
        "project",
        "session_id",
        "agent",
        "parent_link",
        "parent_call_id",
        "created_at",
        "updated_at",
        "item_count",
        "history_count",
        "waiting_count",
        "epoch",
        "version",
        "usage",
        "last_message",
        "dashboard_link",
    )
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "project",
                    "session_id",
                    "agent",
                    "name",
                    "status",
                    "run_status",
                    "metadata_json",
                    "dashboard_link",
                )
            },
        ),
        ("Lineage", {"fields": ("parent_link", "parent_call_id")}),
        (
            "State (derived from the log)",
            {
                "fields": (
                    "created_at",
                    "updated_at",
                    "item_count",
                    "history_count",
                    "waiting_count",
                    "epoch",
                    "version",
                    "usage",
                    "last_message",
                )
            },
        ),
    )

    def has_add_permission(self, request):
        # Agents create sessions over the API, where the id and agent rules live.
        return False

    @admin.display(description="Parent session")
    def parent_link(self, session):
        return session_link(session.parent_id) if session.parent_id else "—"

    @admin.display(description="Usage")
    def usage(self, session):
        return pretty(session.usage_json)

    @admin.display(description="Dashboard")
    def dashboard_link(self, session):
        url = reverse("dashboard:session", args=[session.project_id, session.session_id])
        return format_html('<a href="{}">Open the timeline</a>', url)

    def save_model(self, request, obj, form, change):
        """Changes go through sessions.update, which raises the version pollers watch and tells a parent."""
        fields = {"name": "name", "status": "status", "run_status": "run_status", "metadata_json": "metadata"}
        sessions.update(obj.id, **{fields[name]: form.cleaned_data[name] for name in form.changed_data})

    def get_deleted_objects(self, objs, request):
        """A session's log, timeline, client actions and operations go with it (sessions.delete).
        They are counted rather than listed, as a long session holds thousands, and need no
        delete permission of their own: no one may delete them one by one."""
        counts = {
            "sessions": len(objs),
            "items": sum(session.item_count for session in objs),
            "client actions": ClientAction.objects.filter(session__in=objs).count(),
        }
        return [str(session) for session in objs], counts, set(), []

    def delete_model(self, request, obj):
        sessions.delete(obj.id, actor=request.user.get_username())

    def delete_queryset(self, request, queryset):
        for session_id in queryset.values_list("id", flat=True):
            sessions.delete(session_id, actor=request.user.get_username())


# The log and the timeline ----------------------------------------------------------


@admin.register(Item)
class ItemAdmin(ReadOnlyAdmin):
    list_display = ("session_id", "position", "epoch", "type", "role", "item_key", "received_at")
    list_filter = ("type", "role")
    search_fields = ("=session__id", "=item_key")
    list_select_related = False
    ordering = ("session_id", "-position")
    fields = (
        "session_link",
        "position",
        "epoch",
        "type",
        "role",
        "item_key",
        "call_id",
        "injected",
        "received_at",
        "item",
    )
    readonly_fields = fields

    @admin.display(description="Session")
    def session_link(self, item):
        return session_link(item.session_id)

    @admin.display(description="Item (verbatim JSON)")
    def item(self, item):
        return pretty(item.data)


@admin.register(TimelineEntry)
class TimelineEntryAdmin(ReadOnlyAdmin):
    list_display = ("session_id", "epoch", "seq", "key", "type", "created_at")
    list_filter = ("type",)
    search_fields = ("=session__id", "=key")
    ordering = ("session_id", "-epoch", "-seq")
    fields = ("session_link", "epoch", "seq", "key", "type", "created_at", "entry")
    readonly_fields = fields

    @admin.display(description="Session")
    def session_link(self, entry):
        return session_link(entry.session_id)

    @admin.display(description="History item")
    def entry(self, entry):
        return pretty(entry.data)


# Client actions ----------------------------------------------------------------------


@admin.register(ClientAction)
class ClientActionAdmin(ReadOnlyAdmin):
    list_display = ("name", "call_id", "session_id", "status", "created_at", "resolved_by", "resolved_at")
    list_filter = ("status",)
    search_fields = ("=session__id", "=call_id", "name")
    # Waiting ones first, oldest first, like the approvals page.
    ordering = (
        Case(When(status=ClientActionStatus.WAITING, then=Value(0)), default=Value(1), output_field=IntegerField()),
        "created_at",
    )
    fields = (
        "session_link",
        "call_id",
        "name",
        "description",
        "status",
        "created_at",
        "expires_at",
        "resolved_at",
        "resolved_by",
        "decision",
        "comment",
        "requested_arguments",
        "approved_arguments",
        "allowed_responses",
        "response_schema",
        "response",
        "output",
        "is_error",
        "agent_report",
        "reported",
        "imported",
    )
    readonly_fields = fields

    def get_actions(self, request):
        # One admin action for each decision that needs nothing typed; the vocabulary says which.
        found = super().get_actions(request)
        if self.has_decide_permission(request):
            for decision in WITHOUT_ANSWER:
                found[decision.value] = (
                    self.decision_action(decision),
                    decision.value,
                    f"{decision.label} the selected client actions",
                )
        return found

    def decision_action(self, decision):
        def act(modeladmin, request, queryset):
            modeladmin.decide(request, queryset, decision)

        return act

    @admin.display(description="Response schema")
    def response_schema(self, action):
        return pretty(action.response_schema_json)

    @admin.display(description="Response")
    def response(self, action):
        return pretty(action.response_json)

    @admin.display(description="Session")
    def session_link(self, action):
        return session_link(action.session_id)

    @admin.display(description="Arguments")
    def requested_arguments(self, action):
        return pretty(action.arguments_json)

    @admin.display(description="Approved arguments")
    def approved_arguments(self, action):
        return pretty(action.approved_arguments_json)

    @admin.display(description="Output")
    def output(self, action):
        return pretty(action.output_json)

    def has_decide_permission(self, request):
        # The domain asks the deciders' rule for each action (historyhub.approvals.deciders).
        return operators_only(request)

    def decide(self, request, queryset, decision):
        """All of the selected actions or none, as on the dashboard's approvals page (dashboard.batch); the admin
        names sessions by their keys, as it lists them, since it shows every project."""
        selected = list(queryset.values_list("session_id", "call_id"))
        try:
            batch.decide(selected, decision=decision, comment="", decider=Decider.person(request.user, via="admin"))
        except batch.Refused as refused:
            self.message_user(request, refused.message(refused.session_key), messages.ERROR)
            return
        self.message_user(
            request,
            f"{DONE[decision]} {len(selected)} client action{'s' if len(selected) != 1 else ''}.",
            messages.SUCCESS,
        )


# Operations ------------------------------------------------------------------------------


@admin.register(Operation)
class OperationAdmin(ReadOnlyAdmin):
    list_display = ("operation_id", "session_id", "applied_at")
    search_fields = ("=session__id", "=operation_id")
    ordering = ("-applied_at",)
    fields = ("session_link", "operation_id", "applied_at", "transaction")
    readonly_fields = fields

    @admin.display(description="Session")
    def session_link(self, operation):
        return session_link(operation.session_id)

    @admin.display(description="Transaction")
    def transaction(self, operation):
        return pretty(operation.transaction_json)

"""The admin: sessions, their item log and timeline, and recorded operations (client actions, which the admin
may decide, are approvals' page: ``approvals.action_admin``, built on the helpers here).

Everything derived from the log is read-only here; what may change goes
through the domain functions the API uses, so the projections stay right.
"""

import json

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from historyhub.history import sessions
from historyhub.history.models import ClientAction, Item, Operation, Session, TimelineEntry
from historyhub.lib import jsonvalues, validation
from historyhub.lib.errors import InvalidInput

admin.site.site_header = "HistoryHub administration"
admin.site.site_title = "HistoryHub admin"
admin.site.index_title = "Projects, sessions, client actions and API keys"


def operators_only(request):
    """The admin sees every project at once, so only superusers (the operators) enter it; a project's admins
    manage it on its settings page (docs/projects.md, "The admin")."""
    return request.user.is_active and request.user.is_superuser


admin.site.has_permission = operators_only  # type: ignore[method-assign]  # the one site, narrowed


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

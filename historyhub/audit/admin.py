"""The audit log in the operators' admin: read-only, as it is everywhere in the app (docs/data.md)."""

from django.contrib import admin
from django.http import HttpRequest

from historyhub.audit.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin[AuditEntry]):
    list_display = ("at", "project", "seq", "actor", "action", "target")
    list_filter = ("action", "project")
    search_fields = ("actor", "target")
    date_hierarchy = "at"
    readonly_fields = ("project", "at", "actor", "action", "target", "details_json", "seq", "prev_hash", "hash")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AuditEntry | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: AuditEntry | None = None) -> bool:
        return False

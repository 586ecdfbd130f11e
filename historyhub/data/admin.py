"""The audit log in the operators' admin: read-only, as it is everywhere in the app (docs/data.md)."""

from django.contrib import admin

from historyhub.data.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ("at", "project", "actor", "action", "target")
    list_filter = ("action", "project")
    search_fields = ("actor", "target")
    date_hierarchy = "at"
    readonly_fields = ("project", "at", "actor", "action", "target", "details_json")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

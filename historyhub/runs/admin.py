"""Parked runs in the admin: read, and deleted when nobody will resume them."""

from django.contrib import admin

from historyhub.runs.models import Run


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("run_id", "session_id", "agent", "updated_at", "claimed_until", "claimed_by")
    list_filter = ("agent",)
    search_fields = ("=session__id", "=run_id")
    ordering = ("-updated_at",)
    show_full_result_count = False
    fields = ("session", "run_id", "agent", "awaited", "created_at", "updated_at", "claimed_until", "claimed_by")
    readonly_fields = fields

    @admin.display(description="Awaited client actions")
    def awaited(self, run):
        return ", ".join(run.awaiting.order_by("created_at", "pk").values_list("call_id", flat=True)) or "—"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

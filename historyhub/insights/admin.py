"""Prices and alert rules in the operators' admin, beside the Insights page and the API."""

from django.contrib import admin

from historyhub.insights.models import AlertFiring, AlertRule, Price


@admin.register(Price)
class PriceAdmin(admin.ModelAdmin):
    list_display = ("project", "model", "input_per_million", "output_per_million", "currency")
    list_filter = ("project",)
    search_fields = ("model",)


class AlertFiringInline(admin.TabularInline):
    model = AlertFiring
    extra = 0
    readonly_fields = ("fired_at", "cleared_at", "value")
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(AlertRule)
class AlertRuleAdmin(admin.ModelAdmin):
    list_display = ("project", "kind", "threshold", "action", "created_at")
    list_filter = ("project", "kind")
    inlines = [AlertFiringInline]

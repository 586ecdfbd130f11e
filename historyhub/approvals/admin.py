"""Approval policies in the admin, for operators: each checked by the rules the API applies
(``policies.check``; groups of its own project only, holding enough people to meet it: ``eligibility``). A waiting
action keeps the policy it opened under."""

from typing import Any

from django import forms
from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

# Client actions' page (decided in batches) is a module of its own; importing it registers it.
from historyhub.approvals import (
    action_admin,  # noqa: F401
    eligibility,
    policies,
)
from historyhub.approvals.models import Policy
from historyhub.lib import jsonvalues
from historyhub.lib.errors import InvalidInput
from historyhub.projects.models import Group

JSON_FIELDS = {
    "agents_json": "agents",
    "actions_json": "actions",
    "when_json": "when",
    "approver_groups_json": "approverGroups",
    "escalate_to_json": "escalateTo",
}


class PolicyForm(forms.ModelForm[Policy]):
    class Meta:
        model = Policy
        fields = (
            "project",
            "position",
            "name",
            *JSON_FIELDS,
            "required_approvals",
            "people_only",
            "escalate_after_seconds",
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        try:
            item = {wire: jsonvalues.loads(data.get(field) or "null") for field, wire in JSON_FIELDS.items()}
            checked = policies.check(
                {
                    "name": data.get("name"),
                    **item,
                    "requiredApprovals": data.get("required_approvals"),
                    "peopleOnly": data.get("people_only", False),
                    "escalateAfterSeconds": data.get("escalate_after_seconds"),
                }
            )
        except (ValueError, InvalidInput) as error:
            raise forms.ValidationError(getattr(error, "message", str(error))) from None
        project = data.get("project")
        if project is None:
            return data  # the project field says what is missing
        groups = set(checked["approverGroups"] + checked["escalateTo"])
        known = set(Group.objects.filter(project=project, name__in=groups).values_list("name", flat=True))
        if groups - known:
            raise forms.ValidationError(f"No group named {sorted(groups - known)[0]!r} in this project.")
        try:
            eligibility.refuse_unsatisfiable(project.pk, [checked])
        except InvalidInput as error:
            raise forms.ValidationError(error.message) from None
        return data


@admin.register(Policy)
class PolicyAdmin(admin.ModelAdmin[Policy]):
    form = PolicyForm
    list_display = ("name", "project", "position", "required_approvals", "people_only")
    list_filter = ("project",)
    ordering = ("project", "position")
    search_fields = ("name",)

    # Every change of a project's policies is audited, here as on the page and over the API (docs/data.md).
    def save_model(self, request: HttpRequest, obj: Policy, form: forms.Form, change: bool) -> None:
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            policies.recorded(obj.project_id, request.user.get_username())

    def delete_model(self, request: HttpRequest, obj: Policy) -> None:
        with transaction.atomic():
            super().delete_model(request, obj)
            policies.recorded(obj.project_id, request.user.get_username())

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Policy]) -> None:
        with transaction.atomic():
            projects = set(queryset.values_list("project_id", flat=True))
            super().delete_queryset(request, queryset)
            for project in sorted(projects):
                policies.recorded(project, request.user.get_username())

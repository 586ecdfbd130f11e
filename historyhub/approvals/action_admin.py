"""Client actions in the admin, for operators: shown read-only, and decided in batches as on the dashboard's
approvals page (``approvals.batch``). It lives with approvals, which owns deciding; the rows and the read-only
helpers are history's (``history.admin``)."""

from collections.abc import Callable
from typing import Any, cast

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.http import HttpRequest
from django.utils.safestring import SafeString

from historyhub.approvals import batch
from historyhub.approvals.deciders import Decider
from historyhub.approvals.decisions import DONE
from historyhub.history.admin import ReadOnlyAdmin, operators_only, pretty, session_link
from historyhub.history.models import ClientAction, ClientActionStatus, Decision

AdminAction = Callable[[Any, HttpRequest, "QuerySet[ClientAction]"], None]


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

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # One admin action for each decision a batch may take, as on the approvals page's batch bar.
        found: dict[str, Any] = super().get_actions(request)
        if self.has_decide_permission(request):
            for decision in batch.DECISIONS:
                found[decision.value] = (
                    self.decision_action(decision),
                    decision.value,
                    f"{decision.label} the selected client actions",
                )
        return found

    def decision_action(self, decision: Decision) -> AdminAction:
        def act(modeladmin: Any, request: HttpRequest, queryset: "QuerySet[ClientAction]") -> None:
            modeladmin.decide(request, queryset, decision)

        return act

    @admin.display(description="Response schema")
    def response_schema(self, action: ClientAction) -> SafeString | str:
        return pretty(action.response_schema_json)  # type: ignore[no-any-return]

    @admin.display(description="Response")
    def response(self, action: ClientAction) -> SafeString | str:
        return pretty(action.response_json)  # type: ignore[no-any-return]

    @admin.display(description="Session")
    def session_link(self, action: ClientAction) -> SafeString:
        return session_link(action.session_id)  # type: ignore[no-any-return]

    @admin.display(description="Arguments")
    def requested_arguments(self, action: ClientAction) -> SafeString | str:
        return pretty(action.arguments_json)  # type: ignore[no-any-return]

    @admin.display(description="Approved arguments")
    def approved_arguments(self, action: ClientAction) -> SafeString | str:
        return pretty(action.approved_arguments_json)  # type: ignore[no-any-return]

    @admin.display(description="Output")
    def output(self, action: ClientAction) -> SafeString | str:
        return pretty(action.output_json)  # type: ignore[no-any-return]

    def has_decide_permission(self, request: HttpRequest) -> bool:
        # The domain asks the deciders' rule for each action (historyhub.approvals.deciders).
        return bool(operators_only(request))

    def decide(self, request: HttpRequest, queryset: "QuerySet[ClientAction]", decision: Decision) -> None:
        """All of the selected actions or none, as on the dashboard's approvals page (approvals.batch); the admin
        names sessions by their keys, as it lists them, since it shows every project."""
        selected = list(queryset.values_list("session_id", "call_id"))
        # Only an active superuser gets this far (``operators_only``): never an anonymous one.
        person = cast(User, request.user)
        try:
            batch.decide(selected, decision=decision, comment="", decider=Decider.person(person, via="admin"))
        except batch.Refused as refused:
            self.message_user(request, refused.message(refused.session_key), messages.ERROR)
            return
        self.message_user(
            request,
            f"{DONE[decision]} {len(selected)} client action{'s' if len(selected) != 1 else ''}.",
            messages.SUCCESS,
        )

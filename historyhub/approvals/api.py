"""The project's approval policies over the API (docs/api.md, "Who may decide: approval policies"): any key may
read them, so an agent can show what will govern it; an ``admin`` key replaces them."""

from typing import Any

from ninja import Field, Schema

from historyhub.apikeys.auth import ApiKeyAuth, KeyedRequest, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.approvals import policies
from historyhub.approvals.models import PolicyDict
from historyhub.lib.endpoints import errors
from historyhub.lib.schemas import example
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["policies"])

# One approval: the group example holds one person (the demo's login), and a policy nobody can satisfy is refused.
REFUND_POLICY = {
    "name": "large refunds",
    "agents": ["support*"],
    "actions": ["issue_refund"],
    "when": [{"argument": "amount", "op": "gt", "value": 10000}],
    "approverGroups": ["finance"],
    "requiredApprovals": 1,
    "peopleOnly": True,
    "escalateAfterSeconds": 3600,
    "escalateTo": [],
}


class Condition(Schema):
    argument: str = Field(description="A dotted path into the action's arguments.")
    op: policies.Operator
    value: Any = Field(description="A missing argument or a type that does not compare makes the condition false.")


class PolicyOut(Schema):
    name: str
    agents: list[str] = Field(description="Globs of agent names.")
    actions: list[str] = Field(description="Globs of action names.")
    when: list[Condition]
    approverGroups: list[str] = Field(description="Empty: every approver of the project.")
    requiredApprovals: int = Field(ge=1, le=policies.MAX_REQUIRED)
    peopleOnly: bool = Field(
        description="Keys may not decide, even with the decide scope; the groups must then hold requiredApprovals "
        "people who may decide."
    )
    escalateAfterSeconds: int | None
    escalateTo: list[str] = Field(description="Groups that may decide too once the action is escalated.")


class PolicyList(Schema):
    items: list[PolicyOut] = Field(description="In order: the first that matches an action governs it.")


class PolicyIn(Schema):
    name: str
    agents: list[str] = ["*"]
    actions: list[str] = ["*"]
    when: list[Condition] = []
    approverGroups: list[str] = []
    requiredApprovals: int = Field(1, ge=1, le=policies.MAX_REQUIRED)
    peopleOnly: bool = False
    escalateAfterSeconds: int | None = Field(None, ge=1)
    escalateTo: list[str] = []


class PolicyListIn(Schema):
    model_config = example({"items": [REFUND_POLICY]})

    items: list[PolicyIn] = Field(max_length=policies.MAX_POLICIES)


@router.get("/policies", response={200: PolicyList, **errors()})
def list_policies(request: KeyedRequest) -> dict[str, list[PolicyDict]]:
    """The project's approval policies, in order."""
    return {"items": policies.listing(request.auth.project_id)}


@router.put("/policies", auth=ApiKeyAuth(Scope.ADMIN), response={200: PolicyList, **errors(403, 413)})
def replace_policies(request: KeyedRequest, body: PolicyListIn) -> dict[str, list[PolicyDict]]:
    """Replace the project's policies (admin key). A policy naming an unknown group is refused and nothing changes,
    and so is a people-only policy whose groups hold fewer people who may decide (approvers and admins) than its
    requiredApprovals; actions already waiting keep the policy they opened under."""
    items = [item.model_dump() for item in body.items]
    return {"items": policies.replace(request.auth.project_id, items, actor=resolved_by(request))}

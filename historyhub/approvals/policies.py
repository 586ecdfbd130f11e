"""A project's ordered approval policies: checking them, replacing them, and finding the one that governs an
action when it opens (docs/api.md, "Who may decide: approval policies")."""

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Literal, cast, get_args

from django.db import transaction
from django.db.models import Q

from historyhub.approvals import eligibility
from historyhub.approvals.models import Condition, Policy, PolicyDict
from historyhub.audit import log as audit_log
from historyhub.history.models import ClientAction
from historyhub.lib import globs, jsonvalues, validation
from historyhub.lib.errors import InvalidInput
from historyhub.projects.models import Group


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    POLICIES_SET = "policies.set"


Operator = Literal["eq", "ne", "gt", "gte", "lt", "lte", "in"]
OPERATORS: tuple[str, ...] = get_args(Operator)
MAX_POLICIES = 100
MAX_REQUIRED = 5
FIELDS = {
    "name",
    "agents",
    "actions",
    "when",
    "approverGroups",
    "requiredApprovals",
    "peopleOnly",
    "escalateAfterSeconds",
    "escalateTo",
}


def listing(project: str) -> list[PolicyDict]:
    return [policy.as_dict() for policy in Policy.objects.filter(project=project).order_by("position")]


def replace(project: str, items: object, *, actor: str) -> list[PolicyDict]:
    """Replace the policies of ``project`` (its id) with ``items``, in order, as ``actor``; all or nothing, and
    recorded in the audit log. A people-only policy fewer people may decide under than it needs is refused
    (``eligibility``). Actions already waiting keep the policy they opened under; they are reviewed for one
    nobody may decide any more."""
    if not isinstance(items, list) or len(items) > MAX_POLICIES:
        raise InvalidInput(f"items must be a list of at most {MAX_POLICIES} policies.")
    checked = [check(item, f"items[{index}]") for index, item in enumerate(items)]
    names = [policy["name"] for policy in checked]
    if len(set(names)) != len(names):
        raise InvalidInput("Policy names must be unique within the project.")
    named_groups = {group for policy in checked for group in _groups_named(policy)}
    with transaction.atomic():
        # Two at once (an API call and an edit on the page, say) take turns: the later one replaces the other's
        # list whole, where otherwise its rows would meet the other's on the unique positions. A group deleted
        # meanwhile takes the same turn (administration.delete_group), so no policy names a group that is gone.
        lock(project)
        known = set(Group.objects.filter(project=project, name__in=named_groups).values_list("name", flat=True))
        unknown = sorted(named_groups - known)
        if unknown:
            raise InvalidInput(f"No group named {unknown[0]!r} in this project.")
        eligibility.refuse_unsatisfiable(project, checked)
        Policy.objects.filter(project=project).delete()
        Policy.objects.bulk_create(
            Policy(
                project_id=project,
                position=position,
                name=policy["name"],
                agents_json=jsonvalues.dumps(policy["agents"]),
                actions_json=jsonvalues.dumps(policy["actions"]),
                when_json=jsonvalues.dumps(policy["when"]),
                approver_groups_json=jsonvalues.dumps(policy["approverGroups"]),
                required_approvals=policy["requiredApprovals"],
                people_only=policy["peopleOnly"],
                escalate_after_seconds=policy["escalateAfterSeconds"],
                escalate_to_json=jsonvalues.dumps(policy["escalateTo"]),
            )
            for position, policy in enumerate(checked)
        )
        return recorded(project, actor)


def recorded(project: str, actor: str) -> list[PolicyDict]:
    """What follows a change of ``project``'s policies, in its transaction (the API, the page and the admin all
    end here): the waiting actions are reviewed for one nobody may decide any more (``eligibility.review``), and
    the audit row holds the list as it now is; the list."""
    eligibility.review(project)
    items = listing(project)
    audit_log.record(project, actor, Audited.POLICIES_SET, ", ".join(item["name"] for item in items), items=items)
    return items


def edit(project: str, change: Callable[[list[PolicyDict]], object], *, actor: str) -> list[PolicyDict]:
    """Replace the policies with what ``change`` makes of them (it takes the list as it is, in order, and returns
    the new one), through ``replace``. The project stays locked from the reading to the writing, so two people
    editing at once each change the list the other left."""
    with transaction.atomic():
        lock(project)
        return replace(project, change(listing(project)), actor=actor)


def lock(project: str) -> None:
    """The turn of a change to ``project``'s (its id) policies or to the groups they name: the one every change of
    who may decide takes (``eligibility.turn``)."""
    eligibility.turn(project)


def _groups_named(policy: PolicyDict) -> list[str]:
    return policy["approverGroups"] + policy["escalateTo"]


def naming(project: str, group: str) -> list[str]:
    """The names of ``project``'s (its id) policies that name ``group`` as approvers or to escalate to."""
    policies = Policy.objects.filter(project=project).order_by("position")
    return [policy.name for policy in policies if group in _groups_named(policy.as_dict())]


def uses_of_group(project: str, group: str) -> list[tuple[str, str]]:
    """``naming`` as ``projects.member_changes`` asks it (registered in ``ApprovalsConfig.ready``): a group a
    policy names may not be deleted."""
    return [("policy", name) for name in naming(project, group)]


def check(item: object, where: str = "policy") -> PolicyDict:
    """A policy as sent, with its defaults filled in; ``InvalidInput`` naming the field otherwise."""
    if not isinstance(item, dict):
        raise InvalidInput(f"{where} must be an object.")
    unknown = sorted(set(item) - FIELDS)
    if unknown:
        raise InvalidInput(f"{where}.{unknown[0]} is not a policy field.")
    required = item.get("requiredApprovals", 1)
    if not isinstance(required, int) or isinstance(required, bool) or not 1 <= required <= MAX_REQUIRED:
        raise InvalidInput(f"{where}.requiredApprovals must be an integer from 1 to {MAX_REQUIRED}.")
    people_only = item.get("peopleOnly", False)
    if not isinstance(people_only, bool):
        raise InvalidInput(f"{where}.peopleOnly must be true or false.")
    after = item.get("escalateAfterSeconds")
    if after is not None and (not isinstance(after, int) or isinstance(after, bool) or after < 1):
        raise InvalidInput(f"{where}.escalateAfterSeconds must be a positive integer.")
    return {
        "name": validation.identifier(item.get("name"), f"{where}.name"),
        "agents": _names(item.get("agents", ["*"]), f"{where}.agents"),
        "actions": _names(item.get("actions", ["*"]), f"{where}.actions"),
        "when": [_condition(condition, f"{where}.when[{i}]") for i, condition in enumerate(_list(item, "when", where))],
        "approverGroups": _names(item.get("approverGroups", []), f"{where}.approverGroups"),
        "requiredApprovals": required,
        "peopleOnly": people_only,
        "escalateAfterSeconds": after,
        "escalateTo": _names(item.get("escalateTo", []), f"{where}.escalateTo"),
    }


def _list(item: dict[str, Any], field: str, where: str) -> list[Any]:
    value = item.get(field, [])
    if not isinstance(value, list) or len(value) > 50:
        raise InvalidInput(f"{where}.{field} must be a list of at most 50.")
    return value


def _names(value: object, field: str) -> list[str]:
    if not isinstance(value, list) or len(value) > 50:
        raise InvalidInput(f"{field} must be a list of at most 50 names.")
    return [validation.identifier(name, field) for name in value]


def _condition(condition: object, where: str) -> Condition:
    if not isinstance(condition, dict) or set(condition) != {"argument", "op", "value"}:
        raise InvalidInput(f"{where} must be an object with argument, op and value.")
    validation.identifier(condition["argument"], f"{where}.argument")
    validation.choice(condition["op"], OPERATORS, f"{where}.op")
    validation.json_value(condition["value"], f"{where}.value")
    if condition["op"] == "in" and not isinstance(condition["value"], list):
        raise InvalidInput(f"{where}.value must be a list with in.")
    return cast(Condition, condition)


# Matching ------------------------------------------------------------------------------


def governing(project: str, agent: str, action_name: str, arguments: object) -> PolicyDict | None:
    """The policy (as a dict) that governs an action opening now, or None: the first whose globs and
    conditions all match."""
    for policy in listing(project):
        if matches(policy, agent, action_name, arguments):
            return policy
    return None


def govern(action: ClientAction, project: str, agent: str, created_at: datetime) -> None:
    """The policy of ``project`` that governs an action opening now, copied onto it (a later edit does not change
    it), and when the sweep escalates it; an import governs the waiting actions it recreates with it too. History
    asks it of every opening action (``history.governance``, registered in ``ApprovalsConfig.ready``)."""
    policy = governing(project, agent, action.name, action.arguments)
    action.policy_json = jsonvalues.dumps(policy) if policy is not None else None
    action.escalate_at = None
    action.escalated_at = None
    if policy is not None and policy["escalateAfterSeconds"] is not None:
        action.escalate_at = created_at + timedelta(seconds=policy["escalateAfterSeconds"])


def matches(policy: PolicyDict, agent: str | None, action_name: str, arguments: object) -> bool:
    return (
        globs.matches(agent or "", policy["agents"], empty_matches_all=False)
        and globs.matches(action_name, policy["actions"], empty_matches_all=False)
        and all(holds(condition, arguments) for condition in policy["when"])
    )


def holds(condition: Condition, arguments: object) -> bool:
    """Whether a condition holds; a missing argument, or values that do not compare, make it false."""
    found = arguments
    for part in condition["argument"].split("."):
        if not isinstance(found, dict) or part not in found:
            return False
        found = found[part]
    op, value = condition["op"], condition["value"]
    if op == "in":
        return any(_equal(found, option) for option in value)
    if op in ("eq", "ne"):
        return _equal(found, value) == (op == "eq")
    comparable = (_number(found) and _number(value)) or (isinstance(found, str) and isinstance(value, str))
    if not comparable:
        return False
    return bool({"gt": found > value, "gte": found >= value, "lt": found < value, "lte": found <= value}[op])


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _equal(left: object, right: object) -> bool:
    if isinstance(left, bool) != isinstance(right, bool):
        return False
    return jsonvalues.equal(left, right)


def json_object_starting(key: str, value: object) -> str:
    """How the JSON text of an object whose first key is ``key`` begins, as ``jsonvalues.dumps`` writes it."""
    return str(jsonvalues.dumps({key: value}))[:-1] + ","


def governed_by(name: str) -> Q:
    """Client actions governed by the policy ``name`` (a filter): the snapshot on an action is
    ``jsonvalues.dumps`` of ``Policy.as_dict()``, whose first key is the name."""
    return Q(policy_json__startswith=json_object_starting("name", name))

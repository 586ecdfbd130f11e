"""How many people may decide under a policy, and what follows when too few may (docs/api.md, "A policy that
nobody can satisfy is refused").

A person may decide under a policy when their role in the project lets them decide (approver or admin, active;
superusers are admins of every project: ``access.people_granted``, the set form of ``access.role_of``) and they
belong to one of its deciding groups, or, when it names none, to the project: what ``deciders`` asks of one person,
asked here of everyone at once. A policy that lets keys decide (not ``peopleOnly``) can always be met, since a key
with the ``decide`` scope decides; a people-only one needs at least ``requiredApprovals`` such people. Escalation
groups do not count toward a policy: they may decide only later, once the sweep escalated an action.

- ``policies.replace`` refuses a list holding a policy that cannot be met (``refuse_unsatisfiable``);
- ``keeping_policies`` wraps every change of members, roles or groups (registered with
  ``projects.member_changes``, which ``projects.administration`` runs each through) and refuses the change when
  it would leave a policy of the project with fewer such people than it needs (and fewer than it had);
- ``review`` flags each waiting action whose copied policy (``ClientAction.policy``) nobody can meet any more,
  announcing it to the project's admins once (``client_action.undecidable``), and unflags one that can be
  decided again. It runs after the changes that can cause it: those above, a replacement of the policies, an
  escalation, and a person deactivated, made or unmade superuser, or deleted (the signals below, whatever
  saved them: the admin, a command).
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.dispatch import receiver
from django.utils import timezone

# The module, not the name: deciders imports policies, which imports this module (a cycle resolved at call time).
from historyhub.approvals import deciders
from historyhub.approvals.models import Policy, PolicyDict
from historyhub.history.action_events import Event
from historyhub.history.models import ClientAction, ClientActionStatus
from historyhub.history.writes import writing
from historyhub.lib.errors import DecisionNotAllowed, InvalidInput
from historyhub.projects import access
from historyhub.projects.models import Group, Membership, Project, Role


def turn(project: str) -> None:
    """The turn of a change to who may decide in ``project`` (its id): its policies, members, roles and groups.
    Two such changes take turns, so neither counts people the other is taking away. The row lock leaves the
    project's key alone (``FOR NO KEY UPDATE``): rows that refer to the project (a session, an audit entry) are
    still written meanwhile, so a decision under way never waits for it."""
    Project.objects.select_for_update(no_key=True).get(pk=project)


def eligible(project: str, groups: Iterable[str]) -> int:
    """How many people may decide in ``project`` (its id) as members of ``groups`` (names), or, when ``groups`` is
    empty, as the project's approvers and admins."""
    people = access.people_granted(project, Role.APPROVER)
    if groups:
        members = Group.members.through.objects.filter(group__project_id=project, group__name__in=groups)
        people = people.filter(pk__in=members.values("user_id"))
    count: int = people.count()
    return count


@dataclass(frozen=True)
class Shortfall:
    """A people-only policy that fewer people may decide under than the approvals it needs."""

    policy: str
    required: int
    eligible: int
    groups: tuple[str, ...]

    def why(self, after_change: bool = False) -> str:
        """The policy, what it needs and who may decide under it, as a sentence a person reads."""
        who = f"members of {', '.join(self.groups)}" if self.groups else "people of the project"
        counted = {0: "nobody", 1: "1 person"}.get(self.eligible, f"{self.eligible} people")
        needs = "an approval" if self.required == 1 else f"{self.required} approvals"
        may = "could decide under it after this change" if after_change else "may decide under it"
        return (
            f"The policy {self.policy!r} needs {needs} from people, and {counted} {may} (active {who} with the "
            "approver or admin role)"
        )


class Counts:
    """``eligible`` once per set of groups: one change looks at many policies and actions, most sharing groups."""

    def __init__(self, project: str) -> None:
        self.project = project
        self._counted: dict[tuple[str, ...], int] = {}

    def of(self, groups: Iterable[str]) -> int:
        key = tuple(sorted(groups))
        if key not in self._counted:
            self._counted[key] = eligible(self.project, key)
        return self._counted[key]

    def shortfall(self, policy: PolicyDict, groups: Iterable[str]) -> Shortfall | None:
        """The ``Shortfall`` of ``policy`` (a policy as the wire has it, or an action's copy) with ``groups``
        deciding, or None when it can be met."""
        if not policy["peopleOnly"]:
            return None
        found = self.of(groups)
        if found >= policy["requiredApprovals"]:
            return None
        return Shortfall(policy["name"], policy["requiredApprovals"], found, tuple(groups))


def refuse_unsatisfiable(project: str, items: Iterable[PolicyDict]) -> None:
    """Raise ``InvalidInput`` naming the first of ``items`` (checked policies) that cannot be met in ``project``."""
    counts = Counts(project)
    for policy in items:
        gap = counts.shortfall(policy, policy["approverGroups"])
        if gap is not None:
            raise InvalidInput(f"{gap.why()}; add people to its groups first.")


@contextmanager
def keeping_policies(project: str) -> Iterator[None]:
    """Wrap a change of ``project``'s (its id) members, roles or groups: in its turn and one transaction, the
    change is refused (``DecisionNotAllowed`` naming the policy; it rolls back whole) when it leaves a policy of
    the project with fewer people who may decide under it than it needs, and fewer than before. A change that
    adds people, or leaves a policy as it was, goes ahead. Once it stands, the waiting actions are reviewed."""
    with transaction.atomic():
        turn(project)
        listed = [policy.as_dict() for policy in Policy.objects.filter(project_id=project).order_by("position")]
        before = Counts(project)
        had = {policy["name"]: before.of(policy["approverGroups"]) for policy in listed if policy["peopleOnly"]}
        yield
        after = Counts(project)
        for policy in listed:
            gap = after.shortfall(policy, policy["approverGroups"])
            if gap is not None and gap.eligible < had[policy["name"]]:
                raise DecisionNotAllowed(f"{gap.why(after_change=True)}; nothing was changed.")
        review(project)


# Waiting actions nobody can decide ---------------------------------------------------------


def undecidable(action: ClientAction, counts: Counts) -> Shortfall | None:
    """Why nobody may decide ``action`` (waiting) any more under its copied policy, or None when someone may."""
    policy = action.policy
    if policy is None:
        return None
    return counts.shortfall(policy, deciders.deciding_groups(action))


def review(project: str, now: datetime | None = None) -> int:
    """Flag each waiting action of ``project`` (its id) that nobody may decide any more, announcing it once to the
    channels that want ``client_action.undecidable``, and unflag one that may be decided again; returns how many
    were flagged. Each change is made in its session's write (sessions in key order, as every write of several
    takes them), where the action is looked at again."""
    now = now or timezone.now()
    counts = Counts(project)
    waiting = ClientAction.objects.showing(ClientActionStatus.WAITING, now).filter(
        session__project_id=project, policy_json__isnull=False
    )
    changing = sorted(
        (action.session_id, action.call_id)
        for action in waiting.only("session_id", "call_id", "policy_json", "escalated_at", "undecidable_at")
        if (undecidable(action, counts) is not None) != (action.undecidable_at is not None)
    )
    flagged = 0
    for session_key, call_id in changing:
        with writing(session_key, missing_ok=True) as write:
            if write is None:
                continue
            action = waiting.filter(session=write.session, call_id=call_id).first()
            now_undecidable = action is not None and undecidable(action, counts) is not None
            if action is None or now_undecidable == (action.undecidable_at is not None):
                write.discard()
                continue
            write.change_action(action, undecidable_at=now if now_undecidable else None)
            if now_undecidable:
                write.notify(Event.UNDECIDABLE, action)
                flagged += 1
    return flagged


def reason(action: ClientAction) -> str | None:
    """What a flagged action's card says (None for one that is not): read from its copy of the policy, so a page
    asks the database nothing more; ``review`` counted when it flagged it."""
    if action.undecidable_at is None or not action.is_waiting or action.policy is None:
        return None
    policy, groups = action.policy, deciders.deciding_groups(action)
    who = f"members of {', '.join(groups)}" if groups else "people of the project"
    required = policy["requiredApprovals"]
    needs = "an approval" if required == 1 else f"{required} approvals"
    few = "nobody" if required == 1 else f"fewer than {required} people"
    return (
        f"Nobody can decide this action any more: the policy {policy['name']!r} needs {needs} from people, and "
        f"{few} may decide under it (active {who} with the approver or admin role). A project admin can add people "
        "to its groups."
    )


# People deactivated, made or unmade superusers, or deleted ---------------------------------------

# What of a person, changed, can change who may decide.
DECIDING_FIELDS = ("is_active", "is_superuser")
# Carried on the person's instance from the pre_ signal to the post_ one: those fields as stored before the save,
# and the projects whose deciders the person was among before the delete.
BEFORE = "_deciding_before"
PROJECTS_BEFORE = "_deciding_projects"


def projects_of(user: User, was_superuser: bool = False) -> list[str]:
    """The projects whose deciders ``user`` is, or was, among: every project for a superuser (then or now)."""
    if user.is_superuser or was_superuser:
        return list(Project.objects.values_list("pk", flat=True))
    in_groups = Group.objects.filter(members=user).values_list("project_id", flat=True)
    as_members = Membership.objects.filter(user=user).values_list("project_id", flat=True)
    return sorted(set(in_groups) | set(as_members))


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="historyhub.eligibility.before_person_saved")
def _remember(
    sender: type[User], instance: User, update_fields: Iterable[str] | None = None, raw: bool = False, **kwargs: Any
) -> None:
    if raw or instance.pk is None or (update_fields is not None and not set(DECIDING_FIELDS) & set(update_fields)):
        return
    setattr(instance, BEFORE, sender.objects.filter(pk=instance.pk).values(*DECIDING_FIELDS).first())


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="historyhub.eligibility.person_saved")
def _person_saved(sender: type[User], instance: User, raw: bool = False, **kwargs: Any) -> None:
    """A person deactivated (or made active again), or made or unmade superuser: an operator's act, never refused;
    the actions it leaves nobody to decide are flagged and announced."""
    before: dict[str, bool] | None = getattr(instance, BEFORE, None)
    setattr(instance, BEFORE, None)
    if raw or before is None or all(before[name] == getattr(instance, name) for name in DECIDING_FIELDS):
        return
    for project in projects_of(instance, was_superuser=before["is_superuser"]):
        with transaction.atomic():
            turn(project)
            review(project)


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="historyhub.eligibility.before_person_deleted")
def _remember_projects(sender: type[User], instance: User, **kwargs: Any) -> None:
    setattr(instance, PROJECTS_BEFORE, projects_of(instance))


@receiver(post_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="historyhub.eligibility.person_deleted")
def _person_deleted(sender: type[User], instance: User, **kwargs: Any) -> None:
    projects: list[str] = getattr(instance, PROJECTS_BEFORE, [])
    for project in projects:
        with transaction.atomic():
            turn(project)
            review(project)

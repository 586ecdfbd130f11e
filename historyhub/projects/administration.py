"""Changing a project: its name and retention, its members, groups and API keys (docs/projects.md).

The settings page, the admin and the API (with an admin key) all change a project through these functions,
so each rule is checked in one place; each change is recorded in the audit log here, in its transaction, as
``actor``'s (a person's username or "api key: <name>"; docs/data.md). A change of members, roles or groups runs
inside ``member_changes.changing``, where the rules above projects watch over it (approvals refuses one that
would leave a policy nobody can satisfy: ``eligibility.keeping_policies``).
"""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from historyhub.apikeys.models import ApiKey, parse_scopes
from historyhub.audit import log as audit_log
from historyhub.lib import validation
from historyhub.lib.errors import DecisionNotAllowed, InvalidInput, NotFound
from historyhub.projects import member_changes
from historyhub.projects.models import Group, Membership, Project, Role


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    GROUP_DELETED = "group.deleted"
    GROUP_SET = "group.set"
    KEY_ISSUED = "key.issued"
    KEY_REVOKED = "key.revoked"
    MEMBER_REMOVED = "member.removed"
    MEMBER_SET = "member.set"
    PROJECT_CHANGED = "project.changed"


UNCHANGED = object()
MAX_RETENTION_DAYS = 100 * 365


def create_project(project_id, name=None):
    validation.project_id(project_id, "projectId")
    name = validation.text(name or project_id, "name")
    project, created = Project.objects.get_or_create(id=project_id, defaults={"name": name[:200]})
    if not created:
        raise InvalidInput(f"A project {project_id!r} exists already.")
    return project


def update_project(project, *, actor, name=UNCHANGED, retention_days=UNCHANGED):
    """Change the fields given; the others stay. The settings page, the API and the admin all change a project
    here: a field whose value changes is recorded (``project.changed``) with its value before and after, in the
    transaction of the change, read under the project's row lock so that two changes at once each record the
    value the other left."""
    wanted = {}
    if name is not UNCHANGED:
        wanted["name"] = checked_name(name)
    if retention_days is not UNCHANGED:
        wanted["retention_days"] = checked_retention_days(retention_days)
    if not wanted:
        return project
    with transaction.atomic():
        stored = Project.objects.select_for_update().only(*wanted).get(pk=project.pk)
        changed = [field for field, value in wanted.items() if getattr(stored, field) != value]
        for field, value in wanted.items():
            setattr(project, field, value)
        if changed:
            project.save(update_fields=changed)
            details = {AUDITED[field]: {"old": getattr(stored, field), "new": wanted[field]} for field in changed}
            audit_log.record(project.pk, actor, Audited.PROJECT_CHANGED, project.pk, **details)
    return project


# How the audit log names a project's fields: as the API does.
AUDITED = {"name": "name", "retention_days": "retentionDays"}


def checked_name(name):
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise InvalidInput("name must be a string of 1-200 characters.")
    return validation.text(name.strip(), "name")


def checked_retention_days(days):
    """Whole days from 1 to MAX_RETENTION_DAYS, or None (keep for ever)."""
    valid = days is None or (isinstance(days, int) and not isinstance(days, bool) and 1 <= days <= MAX_RETENTION_DAYS)
    if not valid:
        raise InvalidInput(f"retentionDays must be a whole number of days from 1 to {MAX_RETENTION_DAYS}, or null.")
    return days


# People ---------------------------------------------------------------------------------


def person(username):
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise InvalidInput(f"There is no person with the username {username!r}.")
    return user


def set_member(project, username, role, *, actor):
    """Make the person a member with ``role``, or change their role."""
    role = validation.choice(role, Role.values, "role")
    with member_changes.changing(project.pk):
        membership, _ = Membership.objects.update_or_create(
            project=project, user=person(username), defaults={"role": role}
        )
        audit_log.record(project.pk, actor, Audited.MEMBER_SET, username, role=role)
    return membership


def remove_member(project, username, *, actor):
    """The person leaves the project and its groups."""
    user = person(username)
    with member_changes.changing(project.pk):
        audit_log.record(project.pk, actor, Audited.MEMBER_REMOVED, username)
        if not Membership.objects.filter(project=project, user=user).delete()[0]:
            raise NotFound(f"{username!r} is not a member of this project.")
        for group in Group.objects.filter(project=project, members=user):
            group.members.remove(user)


def members(project):
    return Membership.objects.filter(project=project).select_related("user").order_by("user__username")


# Groups ---------------------------------------------------------------------------------


def group_name(name):
    validation.identifier(name, "name")
    if name != name.strip() or "/" in name:
        raise InvalidInput("A group's name has no leading or trailing spaces and no '/'.")
    return name


def put_group(project, name, usernames, *, actor):
    """Create the group or replace its members; every username must be a member of the project."""
    group_name(name)
    if not isinstance(usernames, list) or not all(isinstance(username, str) for username in usernames):
        raise InvalidInput("members must be an array of usernames.")
    wanted = set(usernames)
    # Superusers are admins of every project, members or not (docs/projects.md).
    people = list(
        get_user_model()
        .objects.filter(Q(memberships__project=project) | Q(is_superuser=True), username__in=wanted, is_active=True)
        .distinct()
    )
    unknown = sorted(wanted - {user.username for user in people})
    if unknown:
        raise InvalidInput(f"{unknown[0]!r} is not a member of this project.")
    with member_changes.changing(project.pk):
        group, _ = Group.objects.get_or_create(project=project, name=name)
        group.members.set(people)
        audit_log.record(project.pk, actor, Audited.GROUP_SET, name, members=sorted(wanted))
    return group


def delete_group(project, name, *, actor):
    """Delete the group, unless a policy names it: an action under that policy could then be decided by nobody."""
    with member_changes.changing(project.pk):
        uses = member_changes.uses_of_group(project.pk, name)
        if uses:
            kind, user = uses[0]
            raise DecisionNotAllowed(f"The {kind} {user!r} names the group {name!r}; change the {kind} first.")
        if not Group.objects.filter(project=project, name=name).delete()[0]:
            raise NotFound(f"There is no group {name!r} in this project.")
        audit_log.record(project.pk, actor, Audited.GROUP_DELETED, name)


def groups(project):
    return Group.objects.filter(project=project).prefetch_related("members").order_by("name")


# Keys -----------------------------------------------------------------------------------


def issue_key(project, name, scopes, *, actor, made_by=None):
    """A new key of the project; returns (api_key, the key in clear, shown once). A key a person makes on the
    settings page (``made_by``) decides as that person; an operator's counts as itself (docs/api.md, "A decider is
    a person or a key")."""
    name = validation.identifier(name.strip() if isinstance(name, str) else name, "name")
    try:
        scopes = parse_scopes(scopes if isinstance(scopes, str) else ",".join(scopes))
    except ValueError as error:
        raise InvalidInput(str(error)) from None
    with transaction.atomic():
        api_key, key = ApiKey.issue(name, scopes, project=project, created_by=made_by)
        audit_log.record(project.pk, actor, Audited.KEY_ISSUED, name, scopes=api_key.scopes, prefix=api_key.prefix)
    return api_key, key


def revoke_key(project, key_pk, *, actor):
    with transaction.atomic():
        api_key = ApiKey.objects.filter(project=project, pk=key_pk, revoked_at__isnull=True).first()
        if api_key is None:
            raise NotFound("There is no such active key in this project.")
        api_key.revoke()
        audit_log.record(project.pk, actor, Audited.KEY_REVOKED, api_key.name, prefix=api_key.prefix)
    return api_key


def api_keys(project):
    return ApiKey.objects.filter(project=project).order_by("revoked_at", "-created_at")

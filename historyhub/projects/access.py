"""Who may do what in a project: a person's role there (superusers are admins of every project), in one place
(docs/projects.md, "People and roles")."""

from django.contrib.auth import get_user_model
from django.db.models import Q

from historyhub.projects.models import ROLE_GRANTS, Membership, Project, Role


def role_of(user, project_id):
    """The person's role in the project, or None when they are not a member."""
    if not user.is_authenticated or not user.is_active:
        return None
    if user.is_superuser:
        return Role.ADMIN
    role = Membership.objects.filter(user=user, project_id=project_id).values_list("role", flat=True).first()
    return Role(role) if role is not None else None


def people_granted(project_id, needed):
    """The people whose role in the project allows what ``needed`` (a Role) allows: ``role_of`` for everyone at
    once (active people only; every active superuser, an admin of every project)."""
    roles = [role for role, granted in ROLE_GRANTS.items() if needed in granted]
    members = Q(pk__in=Membership.objects.filter(project_id=project_id, role__in=roles).values("user_id"))
    if Role.ADMIN in roles:
        members |= Q(is_superuser=True)
    return get_user_model().objects.filter(members, is_active=True)


def roles_of(people, project_id):
    """``role_of`` for several people at once, in one query: their roles by user id (those with none left out)."""
    roles = dict(
        Membership.objects.filter(project_id=project_id, user__in=[person.pk for person in people]).values_list(
            "user_id", "role"
        )
    )
    found = {}
    for person in people:
        if not person.is_active:
            continue
        role = Role.ADMIN if person.is_superuser else roles.get(person.pk)
        if role is not None:
            found[person.pk] = Role(role)
    return found


def project_and_role(user, project_id):
    """The project and the person's role there, in one query; (None, None) when they are not a member, or it
    does not exist (a superuser's role holds even then, so they can be told it does not)."""
    if not user.is_authenticated or not user.is_active:
        return None, None
    if user.is_superuser:
        return Project.objects.filter(pk=project_id).first(), Role.ADMIN
    membership = Membership.objects.filter(user=user, project_id=project_id).select_related("project").first()
    if membership is None:
        return None, None
    return membership.project, Role(membership.role)


def grants(role, needed):
    return role is not None and needed in ROLE_GRANTS[role]


def may(user, project_id, needed):
    """Whether the person's role in the project allows what ``needed`` (a Role) allows."""
    return grants(role_of(user, project_id), needed)


def projects_of(user):
    """The projects the person belongs to (every project, for a superuser), in order."""
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user)

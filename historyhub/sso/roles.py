"""Project roles from the IdP's groups, set at each sign-in (docs/sso.md, "Roles").

``OIDC_ROLES_CLAIM`` names the claim listing the person's groups; ``OIDC_PROJECT_ROLES`` maps a group to roles in
projects. For every project the mapping names, the IdP decides: the person gets the highest role their groups
give there, or leaves the project when none of their groups gives one, so leaving a group at the IdP ends the
access here at the next sign-in. Projects the mapping does not name are managed in HistoryHub as before. Each
change goes through the projects' administration (audited as "sso", refused when it would leave a policy nobody
can satisfy; the sign-in then goes ahead with the role as it was).
"""

import logging

from django.conf import settings
from django.contrib.auth.models import User

from historyhub.lib.errors import DecisionNotAllowed, InvalidInput, NotFound
from historyhub.projects import administration
from historyhub.projects.models import Membership, Project, Role

logger = logging.getLogger(__name__)

ACTOR = "sso"
RANK = {Role.VIEWER.value: 1, Role.APPROVER.value: 2, Role.ADMIN.value: 3}


def wanted(groups: list[str]) -> dict[str, str | None]:
    """The role each project the mapping names should give a person in ``groups``; None where none does."""
    roles: dict[str, str] = {}
    named: set[str] = set()
    for group, projects in settings.OIDC_PROJECT_ROLES.items():
        named.update(projects)
        if group in groups:
            for project, role in projects.items():
                if project not in roles or RANK[role] > RANK[roles[project]]:
                    roles[project] = role
    return {project: roles.get(project) for project in named}


def groups_of(claims: dict) -> list[str] | None:
    value = claims.get(settings.OIDC_ROLES_CLAIM)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(group, str) for group in value):
        return value
    return None


def apply(user: User, claims: dict) -> None:
    if not settings.OIDC_ROLES_CLAIM or not settings.OIDC_PROJECT_ROLES:
        return
    groups = groups_of(claims)
    if groups is None:
        # A claim that is not a list of names says nothing reliable: nothing is changed.
        logger.warning("Single sign-on: the claim %r is not a list of group names", settings.OIDC_ROLES_CLAIM)
        return
    current = dict(Membership.objects.filter(user=user).values_list("project_id", "role"))
    for project_id, role in sorted(wanted(groups).items()):
        if current.get(project_id) == role:
            continue
        project = Project.objects.filter(pk=project_id).first()
        if project is None:
            logger.warning("Single sign-on: OIDC_PROJECT_ROLES names the project %r, which does not exist", project_id)
            continue
        try:
            if role is None:
                administration.remove_member(project, user.get_username(), actor=ACTOR)
            else:
                administration.set_member(project, user.get_username(), role, actor=ACTOR)
        except (DecisionNotAllowed, InvalidInput, NotFound) as error:
            logger.warning("Single sign-on: %s in %r stays as it was: %s", user.get_username(), project_id, error)

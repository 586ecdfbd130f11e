"""What every page's header needs: the project shown, the person's role in it, the projects to switch to."""

from historyhub.projects import access
from historyhub.projects.models import Role


def navigation(request):
    project = getattr(request, "project", None)
    if project is None or not request.user.is_authenticated:
        return {}
    role = request.role
    return {
        "project": project,
        "role": role,
        "may_decide": access.grants(role, Role.APPROVER),
        "may_manage": access.grants(role, Role.ADMIN),
        "my_projects": access.projects_of(request.user),
    }

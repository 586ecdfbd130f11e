"""What every page's header needs: the project shown, the person's role in it, the projects to switch to, and
the colour theme the person picked."""

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


# The cookie static/js/theme.js sets; without it (or with "auto") pages follow the system's light or dark.
THEME_COOKIE = "theme"
THEMES = ("light", "dark")


def theme(request):
    """The theme on <html data-theme>, rendered by the server so a page never flashes the other one."""
    chosen = request.COOKIES.get(THEME_COOKIE)
    return {"theme": chosen if chosen in THEMES else ""}

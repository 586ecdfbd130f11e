"""What every page's header needs: the project shown, the person's role in it, the projects to switch to, the
colour theme the person picked, and the time zone they chose for times."""

from django.utils.functional import SimpleLazyObject

from historyhub.projects import access, time_zones
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


def time_zone(request):
    """The zone the person chose on their profile ("" for the browser's), which ``{% moment %}`` writes times in:
    looked up once, when a page first shows a time."""
    return {"time_zone": SimpleLazyObject(lambda: time_zones.chosen(request.user))}

"""Who may open a dashboard page: a person logged in, a member of the page's project, an admin for its settings.

Every page of the front (and only the front) wraps its views in these; the domain still decides each change
itself (``projects.access``, ``approvals.deciders``), so a page that forgot a check would be refused there.
"""

from functools import wraps

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.http import urlencode
from django_htmx.http import HttpResponseClientRedirect

from historyhub.history import sessions
from historyhub.lib import session_keys
from historyhub.lib.errors import SessionNotFound
from historyhub.projects import access as project_access
from historyhub.projects.models import Role

# What the 403 page tells a person (templates/403.html).
NOT_A_MEMBER = "You are not a member of this project. Ask one of its admins to add you."
ADMINS_ONLY = "Only the project's admins manage its settings. Ask one of its admins."
# The session key that remembers the project a person last opened, which ``/`` opens.
CURRENT_PROJECT = "historyhub_project"


def login_required(view):
    """Django's login_required, except that an htmx request is sent to the login page as a whole page:
    following the redirect inside a fragment would swap the login form into a table."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        if request.htmx:
            page = request.htmx.current_url_abs_path or "/"
            return HttpResponseClientRedirect(f"{settings.LOGIN_URL}?{urlencode({'next': page})}")
        return redirect_to_login(request.get_full_path())

    return wrapper


def project_page(view):
    """A page of one project (the URL's ``project_id``): its members may see it, anyone else gets the 403 page,
    saying why. The view finds the project and the person's role in ``request.project`` and ``request.role``;
    the project becomes the person's current one (``/`` opens it)."""

    @wraps(view)
    @login_required
    def wrapper(request, project_id, *args, **kwargs):
        project, role = project_access.project_and_role(request.user, project_id)
        if project is None and role is not None:
            raise Http404("No such project.")
        if role is None:
            # The same answer whether the project exists or not: a person learns of no project they are not in.
            raise PermissionDenied(NOT_A_MEMBER)
        request.project, request.role = project, role
        if request.session.get(CURRENT_PROJECT) != project.pk:
            request.session[CURRENT_PROJECT] = project.pk
        return view(request, *args, **kwargs)

    return wrapper


def under_current_project(view):
    """A page of no one project (a person's own) under the header of the project they last opened: its
    navigation and their role in it, as on that project's pages. Which project is current does not change."""

    @wraps(view)
    @login_required
    def wrapper(request, *args, **kwargs):
        project = current_project(request)
        if project is not None:
            request.project, request.role = project, project_access.project_and_role(request.user, project.pk)[1]
        return view(request, *args, **kwargs)

    return wrapper


def admins_only(request):
    """Refuse a project page to anyone but the project's admins (the 403 page says why)."""
    if not project_access.grants(request.role, Role.ADMIN):
        raise PermissionDenied(ADMINS_ONLY)


def current_project(request):
    """The project ``/`` opens: the one last opened, else the first the person belongs to, or None."""
    mine = project_access.projects_of(request.user)
    last = request.session.get(CURRENT_PROJECT)
    return (mine.filter(pk=last).first() if last else None) or mine.first()


def session_or_404(request, session_id):
    """The session of the page's project that ``session_id`` names."""
    try:
        return sessions.get(session_keys.session_key(request.project.pk, session_id))
    except SessionNotFound:
        raise Http404("No such session.") from None

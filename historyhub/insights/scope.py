"""Which rows are one project's, told from the session key alone (docs/projects.md, "Session keys"): a key is
``<project>/<session id>``, or a bare id in the project ``default``. Insights' range indexes carry the key, so a
project's rows are found without joining every session of the range."""

from django.db.models import Q

from historyhub.lib.session_keys import DEFAULT_PROJECT


def sessions_of(project_id: str, session: str = "session") -> Q:
    """The rows whose ``session`` (a foreign key to sessions) is of the project; its key is read, nothing joined."""
    if project_id == DEFAULT_PROJECT:
        return ~Q(**{f"{session}__pk__contains": "/"})
    return Q(**{f"{session}__pk__startswith": f"{project_id}/"})

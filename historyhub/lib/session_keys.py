"""A session's key: its project and its id in one string, the primary key every table that belongs to a session
points at (docs/projects.md, "Session keys").

Session ids are unique within a project, so the key is ``<project id>/<session id>``; neither holds a "/", so
the key splits back unambiguously. Sessions of the project ``default`` keep their bare id as their key: they
were made before projects existed, and an upgrade that kept their keys rewrote no item, timeline row, client
action or run.
"""

DEFAULT_PROJECT = "default"


def session_key(project_id: str, session_id: str) -> str:
    return session_id if project_id == DEFAULT_PROJECT else f"{project_id}/{session_id}"


def split(key: str) -> tuple[str, str]:
    """(project id, session id) of a session's key."""
    project_id, slash, session_id = key.partition("/")
    return (project_id, session_id) if slash else (DEFAULT_PROJECT, key)


def project_of(key: str) -> str:
    return split(key)[0]


def session_id_of(key: str) -> str:
    """The id the session's agent and people know it by."""
    return split(key)[1]

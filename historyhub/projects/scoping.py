"""Every API call acts inside its key's project (docs/projects.md, "Scoping").

The routers of the API are ``ScopedRouter``s: a view that takes the session a path names declares it as
``key: SessionId`` and is given that session's key in the calling key's project, never the id as sent. So an
endpoint added later cannot reach another project's session by forgetting a step: the only value it ever sees
is already scoped. Lists and filters take the project (``request.auth.project_id``) explicitly.
"""

import inspect
from functools import wraps

from ninja import Router

from historyhub.lib import session_keys


def session_key(request, session_id):
    """The key of the session ``session_id`` names in the request's project."""
    return session_keys.session_key(request.auth.project_id, session_id)


def in_project(view):
    """``view``, given the session's key for its ``key`` argument (the path's sessionId)."""
    if "key" not in inspect.signature(view).parameters:
        return view
    if inspect.iscoroutinefunction(view):

        @wraps(view)
        async def scoped(request, *args, key, **kwargs):
            return await view(request, *args, key=session_key(request, key), **kwargs)

    else:

        @wraps(view)
        def scoped(request, *args, key, **kwargs):
            return view(request, *args, key=session_key(request, key), **kwargs)

    return scoped


class ScopedRouter(Router):
    def add_api_operation(self, path, methods, view_func, **kwargs):
        return super().add_api_operation(path, methods, in_project(view_func), **kwargs)

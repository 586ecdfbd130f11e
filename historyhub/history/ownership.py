"""What a session owns, and the one way sessions are deleted with it (docs/data.md, "What a session owns").

Deleting a session through the API, the retention sweep and an erasure all call ``delete_sessions``, so a
table added later that belongs to a session is removed by all three or by none.

A session owns:

- every row with a foreign key to Session that cascades: items, timeline entries, client actions, operations,
  parked runs, and whatever later points at a session that way (outbox rows, say);
- through those rows' own cascades, what points at them: a run's awaited actions, a client action's votes;
- the rows listed in ``OWNED_WITHOUT_FOREIGN_KEY``: the Idempotency-Key records of requests to the session,
  which hold the answers it was given;
- its search rows: indexes on PostgreSQL, and on SQLite FTS rows that triggers on the session table delete;
- its child sessions (subagents), with all they own: a subagent's conversation is part of its parent's, so it
  is never left behind by a delete, a retention run or an erasure.
"""

import re
from collections import defaultdict
from urllib.parse import quote

from django.db import models
from django.db.models import Q

from historyhub import live
from historyhub.history import usage_hours
from historyhub.history.models import Session
from historyhub.idempotency.models import IdempotencyRecord
from historyhub.lib import session_keys as keys_of_sessions


def _idempotency_records(session_keys):
    """The recorded answers to requests whose path names one of the sessions (in the session's own project):
    the session's path, its id as sent or percent-encoded, alone or followed by a subpath or a query string."""
    ids_by_project = defaultdict(set)
    for key in session_keys:
        project, session_id = keys_of_sessions.split(key)
        ids_by_project[project].update({session_id, quote(session_id, safe="")})
    matches = Q(pk__in=[])
    for project, session_ids in ids_by_project.items():
        # One regular expression per project (re.escape's output means the same to PostgreSQL): written as
        # three OR terms per session, a batch of 100 cost more to build and plan than its deletes took.
        alternatives = "|".join(re.escape(session_id) for session_id in sorted(session_ids))
        matches |= Q(api_key__project_id=project, target__regex=f"^/api/v1/sessions/({alternatives})([/?]|$)")
    return IdempotencyRecord.objects.filter(matches)


# Each takes a list of session keys and returns a queryset of rows they own that no foreign key to Session
# leads to. Add a table here when it belongs to a session without pointing at it.
OWNED_WITHOUT_FOREIGN_KEY = [_idempotency_records]


def owned_rows(session_keys):
    """Every row the sessions own, one queryset per table, their own rows last."""
    by_foreign_key = [
        relation.related_model._base_manager.filter(**{f"{relation.field.name}__in": session_keys})
        for relation in Session._meta.related_objects
        if relation.on_delete is models.CASCADE
    ]
    return by_foreign_key + [rows_of(session_keys) for rows_of in OWNED_WITHOUT_FOREIGN_KEY]


def with_descendants(session_keys):
    """The sessions and their children, their children's children and so on, parents first."""
    found, frontier = list(session_keys), list(session_keys)
    seen = set(found)
    while frontier:
        children = Session.objects.filter(parent_id__in=frontier).values_list("pk", flat=True)
        frontier = [key for key in children if key not in seen]
        seen.update(frontier)
        found.extend(frontier)
    return found


def delete_sessions(session_keys):
    """Delete the sessions, their descendants and all they own, inside the caller's transaction.

    Returns the keys deleted. Waiters and live pages of each hear it once the transaction commits.
    """
    doomed = with_descendants(session_keys)
    # Locked first, children with them, so a writer appending to one waits and then finds it gone.
    doomed = list(Session.objects.select_for_update().filter(pk__in=doomed).values_list("pk", flat=True))
    if not doomed:
        return []
    # They, their items and client actions leave Insights' tallies in the transaction that deletes them.
    usage_hours.remove_sessions(doomed)
    for rows in owned_rows(doomed):
        rows.delete()
    Session.objects.filter(pk__in=doomed).delete()
    live.announce(*(live.Change(session=key, actions=frozenset(), all_actions=True, inbox=True) for key in doomed))
    return doomed

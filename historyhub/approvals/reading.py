"""Client actions read with their votes: what an action's answer (``schemas.ClientActionOut``), a receipt and the
inbox show (docs/api.md, "Several approvers").

History reads the actions (``client_actions.get``, ``listing``); the votes come along here, prefetched, and the
one action ``get`` reads is judged too, so an async reader serialises the answer without the database. A page of
many is judged together once paged (``votes.judge``): a page costs the queries of one action.
"""

from datetime import datetime

from django.db.models import QuerySet, prefetch_related_objects

from historyhub.approvals import votes
from historyhub.history import client_actions
from historyhub.history.models import ClientAction


def get(key: str, call_id: str) -> ClientAction:
    """The action ``call_id`` of the session ``key``, its votes judged; raises what ``client_actions.get`` raises."""
    action: ClientAction = client_actions.get(key, call_id)
    prefetch_related_objects([action], votes.prefetched())
    votes.judge([action])
    return action


def listing(
    project: str,
    status: str | None = None,
    agent: str | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
) -> QuerySet[ClientAction]:
    """``client_actions.listing`` with each action's votes prefetched, for ``votes.judge`` to judge a page."""
    actions: QuerySet[ClientAction] = client_actions.listing(
        project, status=status, agent=agent, session_id=session_id, now=now
    )
    return actions.prefetch_related(votes.prefetched())

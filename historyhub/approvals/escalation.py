"""Escalation: an action still waiting ``escalateAfterSeconds`` after it opened is escalated by the sweep
(``escalatedAt`` set), after which the members of its policy's ``escalateTo`` groups may decide it too
(``deciders.deciding_groups``). docs/api.md, "Who may decide: approval policies".
"""

import logging
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from historyhub.approvals import eligibility
from historyhub.history.action_events import Event, announce
from historyhub.history.models import ClientAction, ClientActionStatus
from historyhub.history.writes import writing

log = logging.getLogger(__name__)


def sweep_escalations(now: datetime | None = None) -> int:
    """Escalate every waiting action whose time has come; returns how many. Run periodically (``manage.py sweep``)."""
    now = now or timezone.now()
    due = _due(now).values_list("session_id", "call_id")
    escalated_count = 0
    for session_id, call_id in list(due):
        with writing(session_id, missing_ok=True) as write:
            if write is None:
                continue
            # Looked up again under the session's lock: a decision or another sweep may have come first.
            action = _due(now).filter(session=write.session, call_id=call_id).first()
            if action is None:
                write.discard()
                continue
            write.change_action(action, escalated_at=now)
            counts = eligibility.Counts(write.session.project_id)
            if action.undecidable_at is not None and eligibility.undecidable(action, counts) is None:
                # The groups it escalates to may decide it: it is no longer one nobody may decide.
                write.change_action(action, undecidable_at=None)
            write.action_changed(call_id)
            escalated(action)
            escalated_count += 1
    return escalated_count


def _due(now: datetime) -> QuerySet[ClientAction]:
    """Actions still waiting at ``now`` (not expired) whose time to escalate has come, and not escalated yet."""
    due: QuerySet[ClientAction] = ClientAction.objects.showing(ClientActionStatus.WAITING, now).filter(
        escalate_at__lte=now, escalated_at__isnull=True
    )
    return due


def escalated(action: ClientAction) -> None:
    """The one place an escalation is announced, inside the write that escalates it: to the project's channels
    (the outbox row commits with the escalation) and the log."""
    announce(Event.ESCALATED, action)
    log.info("client action %s/%s escalated by policy %r", action.session_id, action.call_id, action.policy["name"])

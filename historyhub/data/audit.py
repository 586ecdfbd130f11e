"""Recording and reading the audit log (docs/data.md, "Audit log").

Every change a person or key makes outside the agent protocol calls ``record`` inside the transaction of the
change, so a change is never committed without its row, nor a row without its change.
"""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import salted_hmac

from historyhub.data.models import AuditEntry
from historyhub.history import jsonvalues
from historyhub.projects import keys


class Action:
    """What an audit row says was done."""

    DECISION = "decision"
    VOTE = "vote"
    SESSION_DELETED = "session.deleted"
    RETENTION_DELETED = "retention.deleted"
    ERASURE = "erasure"
    EXPORT = "export"
    IMPORT = "import"
    PROJECT_CHANGED = "project.changed"
    MEMBER_SET = "member.set"
    MEMBER_REMOVED = "member.removed"
    GROUP_SET = "group.set"
    GROUP_DELETED = "group.deleted"
    POLICIES_SET = "policies.set"
    KEY_ISSUED = "key.issued"
    KEY_REVOKED = "key.revoked"
    CHANNEL_CREATED = "channel.created"
    CHANNEL_CHANGED = "channel.changed"
    CHANNEL_DELETED = "channel.deleted"
    CHANNEL_SECRET_ROTATED = "channel.secret_rotated"
    DELIVERY_SENT_AGAIN = "delivery.sent_again"
    EXECUTION_CLAIMED = "execution.claimed"
    EXECUTION_REFUSED = "execution.refused"


RETENTION_ACTOR = "retention"


def record(project, actor, action, target="", **details):
    """One audit row of ``project`` (its id), in the open transaction."""
    return AuditEntry.objects.create(
        project_id=project,
        actor=actor[:200],
        action=action,
        target=target[:500],
        details_json=jsonvalues.dumps(details),
    )


def decision_made(action, decider):
    """A person's or key's decision of a client action, in the write that made it."""
    project, session_id = keys.split(action.session_id)
    record(
        project,
        decider.name,
        Action.DECISION,
        f"{session_id} / {action.call_id}",
        decision=action.decision,
        comment=action.comment,
        edited=action.approved_arguments_json not in (None, action.arguments_json),
    )


def vote_counted(action, decider, outcome):
    """One approval of several that does not yet decide the action, in the write that counted it."""
    project, session_id = keys.split(action.session_id)
    record(
        project,
        decider.name,
        Action.VOTE,
        f"{session_id} / {action.call_id}",
        decision=outcome["decision"],
        comment=outcome.get("comment") or "",
        edited=outcome.get("approved_arguments_json") not in (None, action.arguments_json),
    )


def value_hash(value):
    """A keyed hash of a metadata value: the same value always gives the same hash on this installation, so an
    operator can show that a person's value was erased, but the row does not tell the value to whoever reads it."""
    return salted_hmac("historyhub.data.audit.value_hash", jsonvalues.canonical(value), algorithm="sha256").hexdigest()


def entries(project, *, actor=None, action=None, since=None, until=None):
    """The project's audit rows matching the filters, newest first."""
    rows = AuditEntry.objects.filter(project=project)
    if actor:
        rows = rows.filter(actor=actor)
    if action:
        rows = rows.filter(action=action)
    if since:
        rows = rows.filter(at__gte=since)
    if until:
        rows = rows.filter(at__lt=until)
    return rows.order_by("-at", "-pk")


def prune(now=None):
    """Delete audit rows older than HISTORYHUB_AUDIT_RETENTION_DAYS; returns how many went."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.HISTORYHUB_AUDIT_RETENTION_DAYS)
    deleted, _ = AuditEntry.objects.filter(at__lt=cutoff).delete()
    return deleted

"""Recording and reading the audit log (docs/data.md, "Audit log").

Each caller names what it did (``"policies.set"``, ``"channel.created"``, …) and passes what it records; this
module knows no app's vocabulary. Every change a person or key makes outside the agent protocol calls ``record``
inside the transaction of the change, so a change is never committed without its row, nor a row without its change.
The row is written unchained and linked into the project's hash chain as soon as that transaction commits
(``historyhub.audit.chain``); every read here links first, so what it shows carries its hash.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.crypto import salted_hmac

from historyhub.audit import chain
from historyhub.audit.models import AuditEntry
from historyhub.lib import commits, jsonvalues


def record(project: str, actor: str, action: str, target: str = "", **details: object) -> AuditEntry:
    """One audit row of ``project`` (its id), in the open transaction, linked into the chain once it commits.

    ``chain.Unwritable`` (a ValueError) when the chain could not hash it, before anything is written: the change
    is then refused with it, rather than committed with a row that can never be linked.
    """
    entry = AuditEntry(
        project_id=project,
        actor=actor[:200],
        action=action,
        target=target[:500],
        details_json=jsonvalues.dumps(details),
    )
    chain.canonical({"actor": entry.actor, "target": entry.target, "details": details})
    entry.save()
    # robust: the change is committed by now, so a failure to link (the database went away) must not undo its
    # answer; the row waits unchained for the next linking (the next row's commit, a read, the sweep).
    commits.after_commit_robust(chain.link, project)
    return entry


def value_hash(value: object) -> str:
    """A keyed hash of a metadata value: the same value always gives the same hash on this installation, so an
    operator can show that a person's value was erased, but the row does not tell the value to whoever reads it."""
    # The salt keeps the module's old name: hashes recorded before the move stay comparable with new ones.
    return salted_hmac("historyhub.data.audit.value_hash", jsonvalues.canonical(value), algorithm="sha256").hexdigest()


def entries(
    project: str,
    *,
    actor: str | None = None,
    action: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[AuditEntry]:
    """The project's audit rows matching the filters, newest (the highest seq) first, each linked."""
    chain.link(project)
    # A row committed after the linking above is left out until it is linked too (at once, by its own commit).
    rows = AuditEntry.objects.filter(project=project, seq__isnull=False)
    if actor:
        rows = rows.filter(actor=actor)
    if action:
        rows = rows.filter(action=action)
    if since:
        rows = rows.filter(at__gte=since)
    if until:
        rows = rows.filter(at__lt=until)
    return rows.order_by("-seq")


def prune(now: datetime | None = None) -> int:
    """The sweep's upkeep of the log: link any row still unchained, and delete rows older than
    HISTORYHUB_AUDIT_RETENTION_DAYS from the start of each project's chain (``chain.prune``); how many went."""
    chain.link_all()
    cutoff = (now or timezone.now()) - timedelta(days=settings.HISTORYHUB_AUDIT_RETENTION_DAYS)
    projects = AuditEntry.objects.filter(at__lt=cutoff).values_list("project_id", flat=True).distinct()
    return sum(chain.prune(project, cutoff) for project in sorted(set(projects)))


def actions(project: str) -> list[str]:
    """The actions recorded in ``project``'s log, for the audit page's filter (an index starts with them)."""
    return sorted(AuditEntry.objects.filter(project=project).values_list("action", flat=True).distinct())

"""Retention: sessions not updated for their project's ``retention_days`` are deleted (docs/data.md, "Retention").

The sweep command runs it. It reads the due sessions ``PAGE_SIZE`` at a time (one query for ten batches)
and deletes them in batches of ``BATCH_SIZE`` sessions, each in its own short transaction, resting between
batches, so a writer never waits long for a lock; it skips sessions a writer holds (they are being updated,
so not due). Each batch checks again under its lock that its sessions are still due. A session whose client
action still waits for a person is kept until the action is decided or expires; so is a session with a
descendant that is not due, since a session goes with its descendants (``historyhub.history.ownership``).
"""

import time
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.history import ownership
from historyhub.history.models import Session, waiting_at
from historyhub.lib import session_keys
from historyhub.projects.models import Project


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    RETENTION_DELETED = "retention.deleted"


# Who the audit log names as the actor of a retention run.
RETENTION_ACTOR = "retention"

BATCH_SIZE = 100
PAGE_SIZE = 1000


def sweep(now=None, batch_size=BATCH_SIZE, page_size=PAGE_SIZE, seconds=None):
    """Delete every project's due sessions; returns how many sessions were deleted, descendants included.

    With ``seconds``, no batch but the first starts after that long: the sweep command runs retention between
    the upkeep that cannot wait (expiries, escalations), so a backlog of old sessions is worked off over
    several sweeps instead of holding those up for minutes. The first batch always runs, so every sweep makes
    progress however short its time. What is left is due at the next sweep.
    """
    now = now or timezone.now()
    deadline = None if seconds is None else time.monotonic() + seconds
    deleted = 0
    for project in Project.objects.filter(retention_days__isnull=False).order_by("pk"):
        deleted += sweep_project(project, now, batch_size, page_size, deadline)
        if deadline is not None and time.monotonic() >= deadline:
            break
    return deleted


def sweep_project(project, now, batch_size=BATCH_SIZE, page_size=PAGE_SIZE, deadline=None):
    due = _due(project, now)
    deleted = 0
    for page in _pages_of_due(due, max(page_size, batch_size)):
        for first in range(0, len(page), batch_size):
            started = time.monotonic()
            with transaction.atomic():
                deleted += len(_delete_batch(project, page[first : first + batch_size], due))
            if deadline is not None and time.monotonic() >= deadline:
                return deleted
            # Rest as long as the batch took: on a small machine the sweep then takes at most half of what the
            # database and the CPUs give, and writers keep their latency (bench/retention.py).
            time.sleep(time.monotonic() - started)
    return deleted


def _pages_of_due(due, page_size):
    """The keys of the due sessions, oldest first, ``page_size`` at a time (keyset paging: each page starts
    after the last one read, so sessions kept by a batch are not read again)."""
    after = None
    while True:
        page = Session.objects.filter(due).order_by("updated_at", "pk")
        if after is not None:
            page = page.filter(Q(updated_at__gt=after[0]) | Q(updated_at=after[0], pk__gt=after[1]))
        page = list(page.values_list("updated_at", "pk")[:page_size])
        if not page:
            return
        after = page[-1]
        yield [key for _, key in page]


def _due(project, now):
    """The project's sessions past its retention at ``now`` with nothing waiting for a person."""
    cutoff = now - timedelta(days=project.retention_days)
    return Q(project=project, updated_at__lt=cutoff) & ~waiting_at(now)


def _delete_batch(project, candidates, due):
    # Locked, and checked again under the lock: a writer may have touched one since it was read. A session a
    # writer holds is skipped rather than waited for.
    locked = list(
        Session.objects.select_for_update(skip_locked=True).filter(due, pk__in=candidates).values_list("pk", flat=True)
    )
    tree = ownership.with_descendants(locked)
    parents = dict(Session.objects.filter(pk__in=tree).values_list("pk", "parent_id"))
    kept = set()
    for key in Session.objects.filter(pk__in=tree).exclude(due).values_list("pk", flat=True):
        # A descendant that is not due keeps each of its ancestors.
        while key is not None and key not in kept:
            kept.add(key)
            key = parents.get(key)
    deleted = ownership.delete_sessions([key for key in locked if key not in kept])
    if deleted:
        audit_log.record(
            project.pk,
            RETENTION_ACTOR,
            Audited.RETENTION_DELETED,
            retentionDays=project.retention_days,
            sessionIds=sorted(session_keys.session_id_of(key) for key in deleted),
        )
    return deleted

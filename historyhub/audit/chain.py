"""The audit log's hash chain, per project (docs/data.md, "The chain").

A row's ``seq`` counts from 1 without gaps, its ``prevHash`` is the previous row's ``hash`` (``GENESIS`` for the
first), and its ``hash`` is ``sha256:`` + the hex SHA-256 of the UTF-8 bytes of ``prevHash`` followed by the RFC 8785
canonical JSON of ``{seq, at, actor, action, target, details}``, each as the audit API returns it (``row``).

Rows are linked after the change they record commits, not in its transaction: ``log.record`` writes the row
unchained, and ``link`` gives the project's committed unchained rows their places in a short transaction of its own
that holds the project's ``AuditChainHead`` row. A change's transaction therefore never waits for the chain, and the
chain's lock is never held while a change takes its own locks, so the two cannot deadlock. ``link`` runs once each
recording transaction commits, before every read that shows hashes, and in the sweep, so every row is linked
promptly and exactly once, in the order the rows were written (their pk).
"""

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

import rfc8785
from django.db import transaction

from historyhub.audit.models import AuditChainHead, AuditEntry
from historyhub.lib.jsonvalues import JSON
from historyhub.lib.times import format_time

PREFIX = "sha256:"
# The integers a double holds exactly: JCS reads every number as a double, so larger ones are written as the
# double nearest to them, as a JavaScript verifier sees them (as historyhub/history/digests.py does).
_SAFE_INTEGER = 2**53 - 1
# Rows linked, or read for verification, per query.
CHUNK = 1000

CHANGED, REMOVED, INSERTED = "changed", "removed", "inserted"


class Unwritable(ValueError):
    """An audit row's values that RFC 8785 cannot write (a lone surrogate, an integer beyond any double)."""


# The row and its hash ----------------------------------------------------------------------------------------


class Row(TypedDict):
    """What ``row`` gives: ``seq``, ``prevHash`` and ``hash`` are None until the row is linked."""

    seq: int | None
    at: str
    actor: str
    action: str
    target: str
    details: JSON
    prevHash: str | None
    hash: str | None


def row(entry: AuditEntry) -> Row:
    """An audit row as the API returns it: ``{seq, at, actor, action, target, details, prevHash, hash}``."""
    return {
        "seq": entry.seq,
        "at": format_time(entry.at),
        "actor": entry.actor,
        "action": entry.action,
        "target": entry.target,
        "details": entry.details,
        "prevHash": entry.prev_hash,
        "hash": entry.hash,
    }


def hash_of(prev_hash: str, fields: Mapping[str, object]) -> str:
    """The hash of a row: ``fields`` are its ``seq, at, actor, action, target, details`` as the API returns them."""
    content = {name: fields[name] for name in ("seq", "at", "actor", "action", "target", "details")}
    return PREFIX + hashlib.sha256(prev_hash.encode("utf-8") + canonical(content)).hexdigest()


def canonical(value: object) -> bytes:
    """The RFC 8785 canonical JSON bytes of ``value``; ``Unwritable`` when JCS cannot write it."""
    try:
        # rfc8785 types its argument as JSON values; it refuses any other object with CanonicalizationError, which
        # is the refusal wanted here, so any object is passed to it.
        return rfc8785.dumps(_as_doubles(value))  # type: ignore[arg-type]
    except (rfc8785.CanonicalizationError, OverflowError) as error:
        raise Unwritable(f"An audit row must be writable as RFC 8785 JSON: {error}") from None


def _as_doubles(value: object) -> object:
    if isinstance(value, dict):
        return {key: _as_doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_doubles(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE_INTEGER:
        return float(value)  # OverflowError beyond any double
    return value


# Linking -----------------------------------------------------------------------------------------------------


def link(project_id: str) -> int:
    """Give ``project_id``'s committed unchained rows their places in its chain, in the order they were written;
    returns how many. Its own short transaction, holding the project's head row: run it outside any other."""
    unchained = AuditEntry.objects.filter(project_id=project_id, seq__isnull=True)
    # Most calls find nothing to link (the rows of a transaction that wrote several were linked by its first
    # call; a read after the commit finds them linked): they take no lock at all. A row committed after this
    # look is linked by its own transaction's call.
    if not unchained.exists():
        return 0
    linked = 0
    while True:
        with transaction.atomic():
            head = _locked_head(project_id)
            pending = list(unchained.order_by("pk")[:CHUNK])
            for entry in pending:
                entry.seq, entry.prev_hash = head.seq + 1, head.hash
                entry.hash = hash_of(entry.prev_hash, row(entry))
                head.seq, head.hash = entry.seq, entry.hash
            if pending:
                AuditEntry.objects.bulk_update(pending, ["seq", "prev_hash", "hash"])
                head.save(update_fields=["seq", "hash"])
        linked += len(pending)
        if len(pending) < CHUNK:
            return linked


def link_all() -> int:
    """Link every project's unchained rows (the sweep: rows whose own linking after their commit failed)."""
    projects = AuditEntry.objects.filter(seq__isnull=True).values_list("project_id", flat=True).distinct()
    return sum(link(project) for project in sorted(set(projects)))


def _locked_head(project_id: str) -> AuditChainHead:
    # select_for_update applies to get_or_create's read, and to its read again when another linker created the
    # head first. On SQLite every write transaction is already one at a time (transaction_mode IMMEDIATE).
    head, _ = AuditChainHead.objects.select_for_update().get_or_create(project_id=project_id)
    return head


def head_of(project_id: str) -> AuditChainHead:
    """The project's head (unsaved and empty when nothing was ever linked)."""
    return AuditChainHead.objects.filter(project_id=project_id).first() or AuditChainHead(project_id=project_id)


# Pruning -----------------------------------------------------------------------------------------------------


def prune(project_id: str, cutoff: datetime) -> int:
    """Delete the oldest rows of the chain, up to the first one recorded at or after ``cutoff``, keeping the last
    deleted row's seq and hash in the head so the rest still verifies; returns how many went.

    Only a prefix of the chain goes: a row older than the cutoff stays while an earlier row is kept. A chain
    whose last row to prune is missing (someone deleted it) is left as it is, evidence included.
    """
    link(project_id)
    with transaction.atomic():
        head = _locked_head(project_id)
        rows = AuditEntry.objects.filter(project_id=project_id, seq__isnull=False)
        first_kept = rows.filter(at__gte=cutoff).order_by("seq").values_list("seq", flat=True).first()
        through = head.seq if first_kept is None else first_kept - 1
        if through <= head.pruned_through_seq:
            return 0
        last_hash = rows.filter(seq=through).values_list("hash", flat=True).first()
        if last_hash is None:
            return 0
        deleted, _ = rows.filter(seq__lte=through).delete()
        head.pruned_through_seq, head.pruned_through_hash = through, last_hash
        head.save(update_fields=["pruned_through_seq", "pruned_through_hash"])
        return deleted


# Verifying ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What verifying a project's chain found: ``rows`` intact, or the first ``seq`` that was ``how`` (changed,
    removed or inserted)."""

    rows: int
    seq: int | None = None
    how: str | None = None

    @property
    def intact(self) -> bool:
        return self.seq is None

    def __str__(self) -> str:
        if self.intact:
            return f"Chain intact: {self.rows} rows"
        return f"Broken at seq {self.seq}: {self.how}"


# Verifying reads without locks; when rows are linked or pruned while it reads, it reads again, and at last
# under the head's lock, so a row linked meanwhile is never taken for one inserted.
ATTEMPTS = 3


def verify(project_id: str) -> Verdict:
    """Recompute ``project_id``'s chain from its first kept row to its head; the first row that was changed,
    removed or inserted, by its seq."""
    link(project_id)
    for _ in range(ATTEMPTS - 1):
        head = head_of(project_id)
        verdict = _walk(project_id, head)
        now = head_of(project_id)
        if (now.seq, now.pruned_through_seq) == (head.seq, head.pruned_through_seq):
            return verdict
    with transaction.atomic():
        return _walk(project_id, _locked_head(project_id))


def _rows(project_id: str) -> Iterator[AuditEntry]:
    """The project's linked rows in seq order, read a chunk at a time."""
    after = -1
    while True:
        chunk = list(AuditEntry.objects.filter(project_id=project_id, seq__gt=after).order_by("seq")[:CHUNK])
        yield from chunk
        if len(chunk) < CHUNK:
            return
        last = chunk[-1].seq
        assert last is not None  # seq__gt reads linked rows only
        after = last


def _walk(project_id: str, head: AuditChainHead) -> Verdict:
    # A row's hash can be None after tampering with it (linking always sets it): the next row's prevHash differs.
    prev: str | None
    expected, prev, intact = head.pruned_through_seq + 1, head.pruned_through_hash, 0
    rows = _rows(project_id)
    entry = next(rows, None)
    while entry is not None:
        following = next(rows, None)
        assert entry.seq is not None  # _rows reads linked rows only
        if entry.seq < expected:
            # Only before the first kept row: a row put back among the pruned ones.
            return Verdict(intact, entry.seq, INSERTED)
        if entry.seq > expected and expected <= head.seq:
            return Verdict(intact, expected, REMOVED)
        if entry.seq > head.seq:
            return Verdict(intact, entry.seq, INSERTED)
        broken = _broken(entry, prev, following, head)
        if broken:
            return Verdict(intact, *broken)
        expected, prev, intact = expected + 1, entry.hash, intact + 1
        entry = following
    if expected <= head.seq:
        return Verdict(intact, expected, REMOVED)
    if intact and prev != head.hash:
        # The last row was changed and its hash computed again: only the head still knows the old one.
        return Verdict(intact - 1, head.seq, CHANGED)
    return Verdict(intact)


def _broken(
    entry: AuditEntry, prev: str | None, following: AuditEntry | None, head: AuditChainHead
) -> tuple[int, str] | None:
    """(seq, how) when ``entry``, at its expected place, is not the row that was linked there; else None."""
    assert entry.seq is not None  # _walk passes linked rows only
    if not _sound(entry):
        # Rows renumbered after one was deleted or put in still hash with the seq they were linked with.
        if _sound(entry, entry.seq + 1):
            return entry.seq, REMOVED
        if _sound(entry, entry.seq - 1):
            return entry.seq - 1, INSERTED
        return entry.seq, CHANGED
    if entry.prev_hash != prev:
        if following is not None and following.seq == entry.seq + 1 and _sound(following, entry.seq):
            # The next row was linked at this seq: this one was put in before it.
            return entry.seq, INSERTED
        if entry.seq - 1 > head.pruned_through_seq:
            # The previous row was changed and its hash computed again; this row's prevHash still has the old one.
            return entry.seq - 1, CHANGED
        return entry.seq, CHANGED
    return None


def _sound(entry: AuditEntry, seq: int | None = None) -> bool:
    """Whether ``entry``'s hash is the hash of its prevHash and fields, as linked at ``seq`` (its own by default)."""
    try:
        fields = row(entry)  # details_json changed into text that is not JSON: ValueError
        if seq is not None:
            fields["seq"] = seq
        return entry.prev_hash is not None and hash_of(entry.prev_hash, fields) == entry.hash
    except ValueError:
        return False


# What other apps read ----------------------------------------------------------------------------------------


def decision_hash(project_id: str, target: str, *, since: datetime) -> str | None:
    """The ``hash`` of the audit row that recorded the decision of ``target`` (``"<session id> / <call id>"``,
    as ``approvals.decisions.audit_decision`` names it) in ``project_id``, written at or after ``since`` (when the
    action opened: an earlier action under the same ids, cleared since, has rows of its own): a receipt's
    ``auditHash``. None when there is none (never decided here, or pruned).

    Call it after the decision has committed, outside any transaction (when a receipt is made or downloaded): it
    links first, and linking inside a change's transaction would hold the project's chain lock until that commits.
    """
    link(project_id)
    rows = AuditEntry.objects.filter(
        project_id=project_id, action="decision", target=target, at__gte=since, seq__isnull=False
    )
    return rows.order_by("seq").values_list("hash", flat=True).first()

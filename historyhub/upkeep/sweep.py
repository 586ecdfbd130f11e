"""One sweep: every piece of time-driven upkeep, in the order that keeps the urgent work on time.

Expiries and escalations first (a person waits on them), then the pruning, then retention, which may be
cut short: with ``seconds`` it starts no batch after that long, so a backlog of old sessions is worked off
over several sweeps instead of holding up the next expiries (``historyhub.upkeep.retention``).
"""

from typing import NamedTuple

from historyhub.approvals import escalation
from historyhub.audit import log as audit_log
from historyhub.history import client_actions
from historyhub.idempotency import records
from historyhub.insights import alerts
from historyhub.upkeep import retention


class Swept(NamedTuple):
    """How many of each thing one sweep wrote down or deleted."""

    expired: int
    escalated: int
    pruned: int
    retained: int
    audited: int
    alerted: int


def sweep(seconds: float | None = None) -> Swept:
    """Run every piece of upkeep once; retention gets at most ``seconds`` (after its first batch)."""
    expired, escalated = client_actions.sweep_expired(), escalation.sweep_escalations()
    pruned = records.prune()
    # Alerts after expiries and escalations, so they compare the numbers as they now stand.
    alerted = alerts.evaluate()
    retained, audited = retention.sweep(seconds=seconds), audit_log.prune()
    return Swept(expired, escalated, pruned, retained, audited, alerted)

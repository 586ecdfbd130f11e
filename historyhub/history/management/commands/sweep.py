"""Time-driven upkeep: expired client actions are written down, waiting ones escalated as their policy says, old
Idempotency-Key records pruned, sessions past their project's retention deleted (docs/data.md).

Reads never write (an expired action already reads expired); this command
makes the stored state catch up. ``bin/start`` runs it beside the server with
``--every``; run it from cron or a scheduler otherwise (docs/operations.md).
"""

import logging
import os
import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, connections

from historyhub.approvals import escalation
from historyhub.data import audit
from historyhub.history import client_actions, retention
from historyhub.idempotency import records
from historyhub.serving import heartbeats

log = logging.getLogger(__name__)
# Its heartbeat (docs/operations.md, "Workers that stay alive"): written after every sweep.
HEARTBEAT_NAME = "sweep"


class Command(BaseCommand):
    help = (
        "Write down expired client actions, escalate waiting ones, prune old Idempotency-Key records and delete "
        "sessions past their project's retention."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            metavar="SECONDS",
            help="Sweep again after this many seconds, until the process that started it ends.",
        )

    def handle(self, *args, every=None, **options):
        parent = os.getppid()
        while True:
            try:
                expired, escalated = client_actions.sweep_expired(), escalation.sweep_escalations()
                pruned = records.prune()
                # At most one interval of retention per sweep, so the next expiries and escalations are on time.
                retained, audited = retention.sweep(seconds=every), audit.prune()
                heartbeats.beat(HEARTBEAT_NAME)
            except DatabaseError as error:
                # The database may be restarting: the next sweep catches up.
                log.warning("sweep failed: %s", error)
            else:
                if expired or escalated or pruned or retained or audited or every is None:
                    self.stdout.write(
                        f"Expired {expired} client actions; escalated {escalated}; "
                        f"pruned {pruned} Idempotency-Key records; "
                        f"deleted {retained} sessions past their project's retention and {audited} old audit rows."
                    )
            if every is None:
                return
            connections.close_all()
            deadline = time.monotonic() + every
            while time.monotonic() < deadline:
                # Looked at every second, so the sweep ends soon after the server that started it.
                if os.getppid() != parent:
                    return
                time.sleep(min(1, max(0, deadline - time.monotonic())))

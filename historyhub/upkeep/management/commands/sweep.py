"""Time-driven upkeep: expired client actions are written down, waiting ones escalated as their policy says, old
Idempotency-Key records pruned, sessions past their project's retention deleted (docs/data.md). What one sweep
does is ``historyhub.upkeep.sweep``; this command runs it once, or every ``--every`` seconds.

Reads never write (an expired action already reads expired); this command
makes the stored state catch up. ``bin/start`` runs it beside the server with
``--every``; run it from cron or a scheduler otherwise (docs/operations.md).
"""

import logging
import os
import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, connections

from historyhub.serving import heartbeats
from historyhub.upkeep.sweep import sweep

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
                # At most one interval of retention per sweep, so the next expiries and escalations are on time.
                swept = sweep(seconds=every)
                heartbeats.beat(HEARTBEAT_NAME)
            except DatabaseError as error:
                # The database may be restarting: the next sweep catches up.
                log.warning("sweep failed: %s", error)
            else:
                if any(swept) or every is None:
                    self.stdout.write(
                        f"Expired {swept.expired} client actions; escalated {swept.escalated}; "
                        f"pruned {swept.pruned} Idempotency-Key records; deleted {swept.retained} sessions past "
                        f"their project's retention and {swept.audited} old audit rows."
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

"""Time-driven upkeep: expired client actions are written down, old Idempotency-Key records pruned.

Reads never write (an expired action already reads expired); this command
makes the stored state catch up. ``bin/start`` runs it beside the server with
``--every``; run it from cron or a scheduler otherwise (docs/operations.md).
"""

import logging
import os
import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, connections

from historyhub.history import client_actions
from historyhub.idempotency import records

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Write down expired client actions and prune old Idempotency-Key records."

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
                expired, pruned = client_actions.sweep_expired(), records.prune()
            except DatabaseError as error:
                # The database may be restarting: the next sweep catches up.
                log.warning("sweep failed: %s", error)
            else:
                if expired or pruned or every is None:
                    self.stdout.write(f"Expired {expired} client actions; pruned {pruned} Idempotency-Key records.")
            if every is None:
                return
            connections.close_all()
            time.sleep(every)
            if os.getppid() != parent:
                return

"""Heartbeats: each worker beside the server (the notification worker ``deliver``, the ``sweep``) writes down when
it last ran, every few seconds while it runs, so a dead one shows (docs/operations.md, "Workers that stay alive"):
``/healthz/details`` reports each one's last run, and the channels and settings pages warn when the delivery
worker has not run for ``STALE_SECONDS``."""

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from historyhub.serving.models import Heartbeat

# How often a running worker writes its heartbeat, at most; and how old one may be before it counts as stopped.
EVERY_SECONDS = 5.0
STALE_SECONDS = 60


def beat(name: str) -> None:
    Heartbeat.objects.update_or_create(
        name=name, defaults={"last_run_at": timezone.now(), "pid": os.getpid(), "host": socket.gethostname()}
    )


@dataclass(frozen=True)
class LastRun:
    name: str
    at: datetime
    pid: int
    host: str

    def as_json(self) -> dict:
        return {"lastRunAt": self.at.isoformat().replace("+00:00", "Z"), "pid": self.pid, "host": self.host}


def last_runs() -> dict[str, LastRun]:
    return {row.name: LastRun(row.name, row.last_run_at, row.pid, row.host) for row in Heartbeat.objects.all()}


def stopped(name: str, now: datetime | None = None) -> bool:
    """Whether the worker ``name`` has not run for ``STALE_SECONDS`` (or never ran)."""
    now = now or timezone.now()
    last = Heartbeat.objects.filter(name=name).values_list("last_run_at", flat=True).first()
    return last is None or now - last > timedelta(seconds=STALE_SECONDS)

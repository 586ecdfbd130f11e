"""What the processes beside the server say about themselves (docs/operations.md, "Workers that stay alive")."""

from django.db import models


class Heartbeat(models.Model):
    """One row per kind of worker (``deliver``, ``sweep``): when one last ran, and which process it was."""

    name = models.CharField(primary_key=True, max_length=40)
    last_run_at = models.DateTimeField()
    pid = models.PositiveIntegerField()
    host = models.CharField(max_length=255)

    def __str__(self):
        return f"{self.name} at {self.last_run_at:%Y-%m-%d %H:%M:%S} (pid {self.pid} on {self.host})"


class Hold(models.Model):
    """One wait or live stream open on some server process, counted against its owner's cap for the whole
    installation (historyhub.live.holds; docs/live-updates.md, "Caps")."""

    # Whose cap it counts against: "waits key:<id>", "streams user:<id>".
    owner = models.CharField(max_length=100)
    # The process holding it ("host:pid:token"), which renews its holds while it runs.
    process = models.CharField(max_length=120)
    renewed_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["owner", "renewed_at"], name="hold_by_owner"),
            models.Index(fields=["process"], name="hold_by_process"),
        ]

    def __str__(self):
        return f"{self.owner} on {self.process}"

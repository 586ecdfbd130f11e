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

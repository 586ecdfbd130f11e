"""Agent runs parked while people decide their client actions (docs/python-client.md, "Runs that wait for people").

The run's state is the agent SDK's own serialisation, kept verbatim as text:
HistoryHub stores it and says when it can go on; only the agent process reads it.
"""

from django.db import models

from historyhub.history.models import ClientAction, Session


class Run(models.Model):
    # No index of its own: the unique constraint below starts with the session and serves it.
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="parked_runs", db_index=False)
    run_id = models.CharField(max_length=200)
    agent = models.CharField(max_length=200, help_text="The starting agent, by name, that resumes the run.")
    state = models.TextField(help_text="The serialised run state, verbatim.")
    awaiting = models.ManyToManyField(
        ClientAction, related_name="parked_runs", blank=True, help_text="The client actions the run waits on."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    claimed_until = models.DateTimeField(null=True, blank=True, help_text="A resumer holds the run until then.")
    claimed_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "run_id"], name="run_unique_id")]
        indexes = [models.Index(fields=["updated_at"], name="run_updated")]

    def __str__(self):
        return f"{self.session_id} / {self.run_id}"

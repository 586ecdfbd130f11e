"""The audit log: who changed what outside the agent protocol, per project (docs/data.md, "Audit log").

Rows are written in the transaction of the change they record (``historyhub.data.audit.record``) and are never
changed or deleted through the app; the sweep prunes rows older than HISTORYHUB_AUDIT_RETENTION_DAYS.
"""

from django.db import models
from django.utils import timezone

from historyhub.history import jsonvalues


class AuditEntry(models.Model):
    # No index of its own: the indexes below start with the project and serve it.
    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="audit_entries", db_index=False
    )
    at = models.DateTimeField(default=timezone.now)
    actor = models.CharField(max_length=200, help_text='A person\'s username, "api key: <name>" or "retention".')
    action = models.CharField(max_length=64)
    target = models.CharField(max_length=500, blank=True, default="", help_text="What was changed, by its id.")
    details_json = models.TextField(default="{}")

    class Meta:
        indexes = [
            models.Index(fields=["project", "-at"], name="audit_by_time"),
            models.Index(fields=["project", "action", "-at"], name="audit_by_action"),
            models.Index(fields=["project", "actor", "-at"], name="audit_by_actor"),
            models.Index(fields=["at"], name="audit_pruning"),
        ]
        verbose_name_plural = "audit entries"

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor}: {self.action} {self.target}"

    @property
    def details(self):
        return jsonvalues.loads(self.details_json)

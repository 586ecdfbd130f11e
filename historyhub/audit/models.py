"""The audit log: who changed what outside the agent protocol, per project (docs/data.md, "Audit log").

Rows are written in the transaction of the change they record (``historyhub.audit.log.record``) and are never
changed or deleted through the app; the sweep prunes rows older than HISTORYHUB_AUDIT_RETENTION_DAYS. A row is
written unchained and linked into its project's hash chain just after its transaction commits
(``historyhub.audit.chain``, docs/data.md "The chain").
"""

from django.db import models
from django.utils import timezone

from historyhub.lib import jsonvalues
from historyhub.lib.jsonvalues import JSON

# The prevHash of a project's first row (docs/data.md, "The chain").
GENESIS = "sha256:" + "0" * 64


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
    # The hash chain (historyhub.audit.chain): all three are null until the row is linked, set once, never changed.
    seq = models.PositiveBigIntegerField(null=True, blank=True)
    prev_hash = models.CharField(max_length=71, null=True, blank=True)
    hash = models.CharField(max_length=71, null=True, blank=True)

    class Meta:
        # The table it had when the data app held it: moving the model moved no row.
        db_table = "data_auditentry"
        indexes = [
            models.Index(fields=["project", "-at"], name="audit_by_time"),
            models.Index(fields=["project", "action", "-at"], name="audit_by_action"),
            models.Index(fields=["project", "actor", "-at"], name="audit_by_actor"),
            models.Index(fields=["at"], name="audit_pruning"),
            # The rows waiting to be linked, found by the chainer in the order they are linked.
            models.Index(fields=["project", "id"], name="audit_unchained", condition=models.Q(seq__isnull=True)),
        ]
        constraints = [
            # One row per place in a project's chain, whoever links it: the database refuses a fork.
            models.UniqueConstraint(fields=["project", "seq"], name="audit_seq_once"),
        ]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor}: {self.action} {self.target}"

    @property
    def details(self) -> JSON:
        return jsonvalues.loads(self.details_json)


class AuditChainHead(models.Model):
    """Where a project's chain stands: its last linked row, and where the kept part begins after pruning.

    Its row is the lock that links rows one at a time (``chain.link``). ``pruned_through_seq`` and
    ``pruned_through_hash`` are the last pruned row's; the first kept row's ``prevHash`` must equal that hash.
    """

    project = models.OneToOneField(
        "projects.Project", on_delete=models.CASCADE, primary_key=True, related_name="audit_chain_head"
    )
    seq = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=71, default=GENESIS)
    pruned_through_seq = models.PositiveBigIntegerField(default=0)
    pruned_through_hash = models.CharField(max_length=71, default=GENESIS)

    def __str__(self) -> str:
        return f"{self.project_id}: seq {self.seq} {self.hash}"

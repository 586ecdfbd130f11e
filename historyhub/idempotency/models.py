"""The answer recorded for an ``Idempotency-Key``, per API key (docs/idempotency.md)."""

from django.db import models

from historyhub.apikeys.models import ApiKey

MAX_KEY_LENGTH = 255


class IdempotencyRecord(models.Model):
    """One key's request and the answer it got.

    The row is inserted when the request starts, inside the transaction that
    applies it, and completed with the answer before that transaction
    commits: a committed row always holds its answer, and a change is never
    committed without its row.
    """

    # No index of its own: the unique constraint below starts with the key and serves it.
    api_key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="idempotency_records", db_index=False)
    key = models.CharField(max_length=MAX_KEY_LENGTH)
    method = models.CharField(max_length=16)
    target = models.TextField(help_text="The request's path, and its query string if it had one.")
    body_digest = models.CharField(max_length=64, help_text="SHA-256 of the request body in canonical form.")
    status = models.PositiveSmallIntegerField(null=True, help_text="Empty only while the request is being applied.")
    content_type = models.CharField(max_length=255, default="")
    body = models.BinaryField(default=b"")
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["api_key", "key"], name="idempotency_key_once_per_api_key")]

    def __str__(self):
        return f"{self.key} ({self.method} {self.target})"

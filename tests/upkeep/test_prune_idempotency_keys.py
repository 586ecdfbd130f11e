"""``manage.py prune_idempotency_keys``: the pruning the sweep does, on its own (docs/idempotency.md)."""

import io
from datetime import timedelta

from django.core.management import call_command
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.idempotency.models import IdempotencyRecord


def record_aged(api_key, idempotency_key, age):
    IdempotencyRecord.objects.create(
        api_key=api_key,
        key=idempotency_key,
        method="POST",
        target="/x",
        body_digest="d",
        created_at=timezone.now() - age,
    )


def test_the_management_command_prunes_and_says_how_many(db):
    api_key, _ = ApiKey.issue("writer", "write")
    record_aged(api_key, "old-1", timedelta(days=3))
    record_aged(api_key, "old-2", timedelta(days=2))
    record_aged(api_key, "new", timedelta(minutes=5))
    output = io.StringIO()

    call_command("prune_idempotency_keys", stdout=output)

    assert output.getvalue() == "Pruned 2 Idempotency-Key records older than 24 hours.\n"
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]

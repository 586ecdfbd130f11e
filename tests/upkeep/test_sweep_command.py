from io import StringIO

import time_machine
from django.core.management import call_command
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.history import client_actions
from historyhub.idempotency.models import IdempotencyRecord


def test_the_sweep_writes_expiry_down_and_prunes_old_idempotency_records(session_id):
    api_key, _ = ApiKey.issue("sweeper", "write")
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        client_actions.open_action(
            session_id, call_id="call_1", name="n", arguments={}, expires_at="2026-12-01T12:05:00Z"
        )
        IdempotencyRecord.objects.create(
            api_key=api_key, key="old", method="POST", target="/x", body_digest="d", created_at=timezone.now()
        )
    with time_machine.travel("2026-12-02T12:00:01Z", tick=False):
        IdempotencyRecord.objects.create(
            api_key=api_key, key="new", method="POST", target="/x", body_digest="d", created_at=timezone.now()
        )
        out = StringIO()
        call_command("sweep", stdout=out)

    assert out.getvalue().strip() == (
        "Expired 1 client actions; escalated 0; pruned 1 Idempotency-Key records; deleted 0 sessions past their "
        "project's retention and 0 old audit rows."
    )
    assert client_actions.get(session_id, "call_1").status == "expired"
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]

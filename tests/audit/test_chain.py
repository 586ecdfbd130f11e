"""The audit log's hash chain (docs/data.md, "The chain"): each row's seq, prevHash and hash as the contract
defines them, linked once its change commits, kept verifiable through pruning, and a decision's hash for receipts."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from historyhub.audit import chain
from historyhub.audit import log as audit_log
from historyhub.audit.models import AuditChainHead, AuditEntry
from historyhub.history.models import ClientAction
from historyhub.projects import administration
from tests.audit.chaining import GENESIS, chain_of, expected_hash
from tests.support.runs import decide


def test_rows_chain_from_one_with_the_contracts_hash_of_the_api_row(db):
    audit_log.record("default", "ada", "member.set", "ben", role="viewer")
    audit_log.record("default", "api key: ci", "policies.set", "big", items=[{"name": "big", "amount": 1.5}])

    first, second = [chain.row(entry) for entry in audit_log.entries("default").reverse()]

    assert (first["seq"], first["prevHash"]) == (1, GENESIS)
    assert (second["seq"], second["prevHash"]) == (2, first["hash"])
    assert first["hash"] == expected_hash(first) and second["hash"] == expected_hash(second)
    assert first["at"].endswith("Z") and first["details"] == {"role": "viewer"}


def test_each_project_has_its_own_chain(db):
    administration.create_project("acme", "Acme")
    for project in ("default", "acme", "default"):
        audit_log.record(project, "ada", "export")

    chain.link("default"), chain.link("acme")

    assert [seq for seq, _, _ in chain_of("default")] == [1, 2]
    assert [(seq, prev) for seq, prev, _ in chain_of("acme")] == [(1, GENESIS)]
    assert AuditChainHead.objects.get(project="default").hash == chain_of("default")[-1][2]


@pytest.mark.django_db(transaction=True)
def test_a_row_is_linked_when_its_change_commits_and_a_rolled_back_one_leaves_no_gap():
    with transaction.atomic():
        audit_log.record("default", "ada", "export")
        assert chain_of("default") == [(None, None, None)]
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_log.record("default", "ada", "export")
        raise RuntimeError("the change failed")
    audit_log.record("default", "ada", "import")

    assert [seq for seq, _, _ in chain_of("default")] == [1, 2]
    assert chain.verify("default") == chain.Verdict(rows=2)


def test_details_the_chain_cannot_hash_refuse_the_change_before_anything_is_written(db):
    with pytest.raises(chain.Unwritable):
        audit_log.record("default", "ada", "export", output="\ud800")

    assert not AuditEntry.objects.exists()


def test_an_integer_beyond_a_double_is_hashed_as_the_double_a_javascript_verifier_reads(db):
    audit_log.record("default", "ada", "export", count=2**60 + 1)

    (entry,) = audit_log.entries("default")
    as_read = {**chain.row(entry), "details": {"count": float(2**60)}}
    assert entry.hash == expected_hash(as_read)


def test_pruning_removes_the_start_of_the_chain_and_what_is_left_still_verifies(db, settings):
    settings.HISTORYHUB_AUDIT_RETENTION_DAYS = 30
    for index in range(5):
        audit_log.record("default", "ada", "export", index=index)
    long_ago = timezone.now() - timedelta(days=31)
    # Rows 1, 2 and 4 are old; 4 stays while 3, before it, is kept.
    AuditEntry.objects.filter(details_json__in=['{"index":0}', '{"index":1}', '{"index":3}']).update(at=long_ago)

    assert audit_log.prune() == 2

    assert [seq for seq, _, _ in chain_of("default")] == [3, 4, 5]
    head = AuditChainHead.objects.get(project="default")
    assert (head.pruned_through_seq, head.pruned_through_hash) == (2, chain_of("default")[0][1])
    assert str(chain.verify("default")) == "Chain intact: 3 rows"


def test_a_row_put_back_among_the_pruned_ones_is_an_insertion(db, settings):
    settings.HISTORYHUB_AUDIT_RETENTION_DAYS = 30
    for _ in range(3):
        audit_log.record("default", "ada", "export")
    old = AuditEntry.objects.order_by("pk").first()
    AuditEntry.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=31))
    chain.link("default")
    kept = AuditEntry.objects.get(pk=old.pk)
    audit_log.prune()

    kept.pk = None
    kept.save()

    assert chain.verify("default") == chain.Verdict(rows=0, seq=1, how="inserted")


def test_the_sweep_links_rows_left_unchained(db):
    audit_log.record("default", "ada", "export")

    audit_log.prune()

    assert chain_of("default")[0][0] == 1


def test_a_decisions_hash_is_the_hash_of_its_row(api):
    api.post("sessions", {"sessionId": "s", "agent": "a"})
    api.post("sessions/s/client-actions", {"callId": "c1", "name": "refund", "arguments": {}})
    decide("s", "c1", "approve")

    opened = ClientAction.objects.get(call_id="c1").created_at
    found = chain.decision_hash("default", "s / c1", since=opened)

    assert found == AuditEntry.objects.get(action="decision").hash
    assert found.startswith("sha256:") and len(found) == 71
    assert chain.decision_hash("default", "s / c2", since=opened) is None
    # A row written before the action opened is another action's (one cleared since, under the same ids).
    assert chain.decision_hash("default", "s / c1", since=timezone.now()) is None

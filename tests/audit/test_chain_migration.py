"""Audit 0002 and 0003: rows written before the chain are linked, per project in the order they were written,
and verify as rows linked by the app do."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from historyhub.audit import chain
from historyhub.audit import log as audit_log
from historyhub.audit.models import AuditChainHead
from tests.audit.chaining import GENESIS, chain_of, expected_hash
from tests.support.migrations import latest, migrate

BEFORE = [("audit", "0001_audit_entries_from_data")]


@pytest.mark.django_db(transaction=True)
def test_existing_rows_are_linked_per_project_in_the_order_they_were_written():
    old = migrate(BEFORE)
    old.get_model("projects", "Project").objects.get_or_create(id="acme", defaults={"name": "Acme"})
    written = old.get_model("audit", "AuditEntry").objects
    for project, action in [("default", "export"), ("acme", "export"), ("default", "import"), ("default", "erasure")]:
        written.create(project_id=project, actor="ada", action=action, details_json='{"n":1}')

    MigrationExecutor(connection).migrate(latest())

    assert [(seq, prev) for seq, prev, _ in chain_of("acme")] == [(1, GENESIS)]
    default = chain_of("default")
    assert [seq for seq, _, _ in default] == [1, 2, 3]
    assert [row["action"] for row in map(chain.row, audit_log.entries("default").reverse())] == [
        "export",
        "import",
        "erasure",
    ]
    assert all(row["hash"] == expected_hash(row) for row in map(chain.row, audit_log.entries("default")))
    assert AuditChainHead.objects.get(project="default").hash == default[-1][2]
    assert chain.verify("default") == chain.Verdict(rows=3) and chain.verify("acme") == chain.Verdict(rows=1)
    # New rows continue the chain.
    audit_log.record("default", "ada", "export")
    assert chain.verify("default") == chain.Verdict(rows=4)

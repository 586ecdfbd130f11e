"""``manage.py verify_audit`` recomputes every chain and names, by its seq, the first row someone with database
access changed, removed or inserted (docs/data.md, "The chain")."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from historyhub.audit import chain
from historyhub.audit import log as audit_log
from historyhub.audit.models import AuditEntry
from historyhub.projects import administration
from tests.audit.chaining import chain_of, expected_hash, sql


@pytest.fixture
def five(db):
    """Five linked rows in the default project, one in acme."""
    for index in range(1, 6):
        audit_log.record("default", "ada", "member.set", f"person{index}", role="viewer")
    administration.create_project("acme", "Acme")
    audit_log.record("acme", "ada", "export")
    chain.link("default"), chain.link("acme")


def verify_audit(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("verify_audit", *args, stdout=out, stderr=err)
    return out.getvalue()


def refused(*args):
    with pytest.raises(CommandError) as error:
        verify_audit(*args)
    return str(error.value)


def test_intact_chains_pass_and_say_how_many_rows(five):
    assert verify_audit() == "acme: Chain intact: 1 rows\ndefault: Chain intact: 5 rows\n"
    assert verify_audit("--project", "acme") == "acme: Chain intact: 1 rows\n"


def test_a_rows_details_changed_with_sql(five):
    sql("UPDATE {table} SET details_json = %s WHERE project_id = %s AND seq = 3", '{"role":"admin"}', "default")

    assert refused() == "The audit log was changed: default: Broken at seq 3: changed."
    # The other project's chain is its own.
    assert verify_audit("--project", "acme") == "acme: Chain intact: 1 rows\n"


def test_a_row_changed_and_its_hash_computed_again_is_named_by_the_next_rows_link(five):
    entry = AuditEntry.objects.get(project="default", seq=2)
    row = {**chain.row(entry), "actor": "mallory"}
    sql("UPDATE {table} SET actor = %s, hash = %s WHERE id = %s", "mallory", expected_hash(row), entry.pk)

    assert "default: Broken at seq 2: changed" in refused("--project", "default")


def test_the_last_row_changed_and_its_hash_computed_again_is_named_by_the_head(five):
    entry = AuditEntry.objects.get(project="default", seq=5)
    row = {**chain.row(entry), "target": "someone else"}
    sql("UPDATE {table} SET target = %s, hash = %s WHERE id = %s", "someone else", expected_hash(row), entry.pk)

    assert "default: Broken at seq 5: changed" in refused()


def test_a_row_deleted_with_sql(five):
    sql("DELETE FROM {table} WHERE project_id = %s AND seq = 2", "default")

    assert "default: Broken at seq 2: removed" in refused()


def test_a_row_deleted_and_the_later_ones_numbered_again(five):
    sql("DELETE FROM {table} WHERE project_id = %s AND seq = 2", "default")
    for seq in (3, 4, 5):
        sql("UPDATE {table} SET seq = %s WHERE project_id = %s AND seq = %s", seq - 1, "default", seq)

    assert "default: Broken at seq 2: removed" in refused()


def test_the_last_row_deleted(five):
    sql("DELETE FROM {table} WHERE project_id = %s AND seq = 5", "default")

    assert "default: Broken at seq 5: removed" in refused()


def test_a_row_inserted_after_the_last_with_a_correct_hash(five):
    last = AuditEntry.objects.get(project="default", seq=5)
    forged = {**chain.row(last), "seq": 6, "prevHash": last.hash, "target": "mallory"}
    sql(
        "INSERT INTO {table} (project_id, at, actor, action, target, details_json, seq, prev_hash, hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        *("default", last.at, last.actor, last.action, "mallory", last.details_json),
        *(6, last.hash, expected_hash(forged)),
    )

    assert "default: Broken at seq 6: inserted" in refused()


def test_a_row_inserted_in_the_middle_and_the_later_ones_numbered_again(five):
    for seq in (5, 4, 3):
        sql("UPDATE {table} SET seq = %s WHERE project_id = %s AND seq = %s", seq + 1, "default", seq)
    before = AuditEntry.objects.get(project="default", seq=2)
    forged = {**chain.row(before), "seq": 3, "prevHash": before.hash, "target": "mallory"}
    sql(
        "INSERT INTO {table} (project_id, at, actor, action, target, details_json, seq, prev_hash, hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        *("default", before.at, before.actor, before.action, "mallory", before.details_json),
        *(3, before.hash, expected_hash(forged)),
    )

    assert [seq for seq, _, _ in chain_of("default")] == [1, 2, 3, 4, 5, 6]
    assert "default: Broken at seq 3: inserted" in refused()


def test_a_row_inserted_in_the_middle_with_a_made_up_link(five):
    for seq in (5, 4, 3):
        sql("UPDATE {table} SET seq = %s WHERE project_id = %s AND seq = %s", seq + 1, "default", seq)
    before = AuditEntry.objects.get(project="default", seq=2)
    forged = {**chain.row(before), "seq": 3, "prevHash": "sha256:" + "1" * 64}
    sql(
        "INSERT INTO {table} (project_id, at, actor, action, target, details_json, seq, prev_hash, hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        *("default", before.at, before.actor, before.action, before.target, before.details_json),
        *(3, forged["prevHash"], expected_hash(forged)),
    )

    assert "default: Broken at seq 3: inserted" in refused()


def test_an_unknown_project_is_an_error(five):
    assert refused("--project", "nowhere") == "There is no project 'nowhere'."

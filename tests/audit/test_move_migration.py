"""Audit 0001 and data 0002 move the audit log's model to the audit app: rows, table and permissions stay."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.support.migrations import latest, migrate

BEFORE = [("audit", None), ("data", "0001_audit_log"), ("contenttypes", "0002_remove_content_type_name")]
MOVED = [("data", "0002_audit_entries_to_audit_app"), ("contenttypes", "0002_remove_content_type_name")]


@pytest.mark.django_db(transaction=True)
def test_the_rows_and_the_content_type_follow_the_model_to_the_audit_app():
    old = migrate(BEFORE)
    ContentType = old.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label__in=["data", "audit"], model="auditentry").delete()
    content_type = ContentType.objects.create(app_label="data", model="auditentry")
    old.get_model("data", "AuditEntry").objects.create(project_id="default", actor="ada", action="export")

    new = migrate(MOVED)

    rows = new.get_model("audit", "AuditEntry").objects.values_list("actor", "action")
    assert list(rows) == [("ada", "export")]
    moved = new.get_model("contenttypes", "ContentType").objects.get(pk=content_type.pk)
    assert (moved.app_label, moved.model) == ("audit", "auditentry")
    assert "data_auditentry" in connection.introspection.table_names()
    MigrationExecutor(connection).migrate(latest())

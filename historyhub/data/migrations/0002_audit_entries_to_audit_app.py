"""The audit log's model now belongs to the audit app (audit 0001): the data app forgets it, the table stays."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("data", "0001_audit_log"),
        ("audit", "0001_audit_entries_from_data"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="AuditEntry")]),
    ]

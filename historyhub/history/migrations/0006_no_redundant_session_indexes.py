"""Drop the indexes Django made for the session foreign keys of the log, the timeline, client actions
and operations: each table's unique constraint starts with the session and serves the same lookups.

The database side is written by hand: on SQLite, Django would rebuild each table to change the field,
copying every row and dropping the timeline's search triggers (migration 0004) with the old table.
"""

import django.db.models.deletion
from django.db import migrations, models

# The names Django gave the indexes (PostgreSQL adds a ``_like`` twin for varchar pattern matching).
INDEXES = {
    "history_clientaction": "history_clientaction_session_id_fb7b2e57",
    "history_item": "history_item_session_id_c5410568",
    "history_operation": "history_operation_session_id_3601fca7",
    "history_timelineentry": "history_timelineentry_session_id_75686ae2",
}


def drop_indexes(apps, schema_editor):
    for name in INDEXES.values():
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"DROP INDEX IF EXISTS {name}_like")


def create_indexes(apps, schema_editor):
    for table, name in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX {name} ON {table} (session_id)")
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"CREATE INDEX {name}_like ON {table} (session_id varchar_pattern_ops)")


def session_key(related_name):
    return models.ForeignKey(
        db_index=False,
        on_delete=django.db.models.deletion.CASCADE,
        related_name=related_name,
        to="history.session",
    )


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0005_index_messages_per_batch"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name="clientaction", name="session", field=session_key("client_actions")),
                migrations.AlterField(model_name="item", name="session", field=session_key("items")),
                migrations.AlterField(model_name="operation", name="session", field=session_key("operations")),
                migrations.AlterField(model_name="timelineentry", name="session", field=session_key("timeline")),
            ],
            database_operations=[migrations.RunPython(drop_indexes, create_indexes)],
        ),
    ]

"""SQLite: a write's new messages go into the search index in one statement (matching.index_new_entries)
instead of a trigger's one INSERT per row, which FTS5 takes several times more slowly."""

from django.db import migrations

INSERT_TRIGGER = (
    "CREATE TRIGGER history_message_search_insert AFTER INSERT ON history_timelineentry "
    "WHEN new.type = 'message' BEGIN "
    "INSERT INTO history_message_search (rowid, text) VALUES (new.id, new.text); END"
)


def drop_insert_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER history_message_search_insert")


def create_insert_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(INSERT_TRIGGER)


class Migration(migrations.Migration):
    dependencies = [("history", "0004_search_indexes")]

    operations = [migrations.RunPython(drop_insert_trigger, create_insert_trigger)]

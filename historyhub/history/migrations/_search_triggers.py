"""The SQLite triggers that keep a session's row in the search index (migration 0004 made them).

SQLite cannot add a NOT NULL column, or change most columns, in place: Django builds the table again and
copies the rows, and the table's triggers go with the old one. A migration that makes Django rebuild
history_session puts ``keep_session_search_triggers()`` around its operations, so the triggers exist after
it, whichever way it runs.
"""

from django.db import migrations

TRIGGERS = {
    "history_session_search_insert": (
        "CREATE TRIGGER history_session_search_insert AFTER INSERT ON history_session BEGIN "
        "INSERT INTO history_session_search_key (session_id) VALUES (new.id); "
        "INSERT INTO history_session_search (rowid, id, name, agent, metadata_text) "
        "SELECT key, new.id, new.name, new.agent, new.metadata_text "
        "FROM history_session_search_key WHERE session_id = new.id; END"
    ),
    "history_session_search_update": (
        "CREATE TRIGGER history_session_search_update AFTER UPDATE OF id, name, agent, metadata_text "
        "ON history_session BEGIN "
        "INSERT INTO history_session_search (history_session_search, rowid, id, name, agent, metadata_text) "
        "SELECT 'delete', key, old.id, old.name, old.agent, old.metadata_text "
        "FROM history_session_search_key WHERE session_id = old.id; "
        "UPDATE history_session_search_key SET session_id = new.id WHERE session_id = old.id; "
        "INSERT INTO history_session_search (rowid, id, name, agent, metadata_text) "
        "SELECT key, new.id, new.name, new.agent, new.metadata_text "
        "FROM history_session_search_key WHERE session_id = new.id; END"
    ),
    "history_session_search_delete": (
        "CREATE TRIGGER history_session_search_delete AFTER DELETE ON history_session BEGIN "
        "INSERT INTO history_session_search (history_session_search, rowid, id, name, agent, metadata_text) "
        "SELECT 'delete', key, old.id, old.name, old.agent, old.metadata_text "
        "FROM history_session_search_key WHERE session_id = old.id; "
        "DELETE FROM history_session_search_key WHERE session_id = old.id; END"
    ),
}


def recreate(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for name, create in TRIGGERS.items():
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
        schema_editor.execute(create)


def keep_session_search_triggers(*operations):
    """``operations``, with the triggers made again after them going forwards, and after undoing them backwards."""
    return [
        migrations.RunPython(migrations.RunPython.noop, recreate),
        *operations,
        migrations.RunPython(recreate, migrations.RunPython.noop),
    ]

"""The search indexes (docs/search.md): trigram indexes on PostgreSQL, FTS5 trigram tables on SQLite.

They live outside the models' state because each database has its own kind; Django
manages only the partial index of sessions waiting on a person.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models

POSTGRESQL = [
    (
        # Upper-cased as Django's icontains compares; not partial, so the planner has the statistics
        # ANALYZE gathers for an index's expressions and can tell a rare word from a common one.
        "CREATE INDEX history_session_search ON history_session USING gin ("
        "upper(id::text) gin_trgm_ops, upper(name::text) gin_trgm_ops, "
        "upper(agent::text) gin_trgm_ops, upper(metadata_text) gin_trgm_ops)",
        "DROP INDEX history_session_search",
    ),
    (
        "CREATE INDEX history_message_search ON history_timelineentry USING gin (upper(text) gin_trgm_ops)",
        "DROP INDEX history_message_search",
    ),
]

SQLITE = [
    # Contentless FTS5 tables: they hold the trigram index only, and are read with MATCH alone. A session's
    # row is keyed through a table of its own: history_session has no integer key that stays put (VACUUM
    # may renumber its rowids). A contentless table forgets a row when told its old values, as here.
    (
        "CREATE TABLE history_session_search_key (key INTEGER PRIMARY KEY, session_id TEXT NOT NULL UNIQUE)",
        "DROP TABLE history_session_search_key",
    ),
    (
        "CREATE VIRTUAL TABLE history_session_search USING fts5("
        "id, name, agent, metadata_text, content='', tokenize='trigram', detail='none')",
        "DROP TABLE history_session_search",
    ),
    (
        "INSERT INTO history_session_search_key (session_id) SELECT id FROM history_session",
        "",
    ),
    (
        "INSERT INTO history_session_search (rowid, id, name, agent, metadata_text) "
        "SELECT k.key, s.id, s.name, s.agent, s.metadata_text "
        "FROM history_session s JOIN history_session_search_key k ON k.session_id = s.id",
        "",
    ),
    (
        "CREATE TRIGGER history_session_search_insert AFTER INSERT ON history_session BEGIN "
        "INSERT INTO history_session_search_key (session_id) VALUES (new.id); "
        "INSERT INTO history_session_search (rowid, id, name, agent, metadata_text) "
        "SELECT key, new.id, new.name, new.agent, new.metadata_text "
        "FROM history_session_search_key WHERE session_id = new.id; END",
        "DROP TRIGGER history_session_search_insert",
    ),
    (
        "CREATE TRIGGER history_session_search_update AFTER UPDATE OF id, name, agent, metadata_text "
        "ON history_session BEGIN "
        "INSERT INTO history_session_search (history_session_search, rowid, id, name, agent, metadata_text) "
        "SELECT 'delete', key, old.id, old.name, old.agent, old.metadata_text "
        "FROM history_session_search_key WHERE session_id = old.id; "
        "UPDATE history_session_search_key SET session_id = new.id WHERE session_id = old.id; "
        "INSERT INTO history_session_search (rowid, id, name, agent, metadata_text) "
        "SELECT key, new.id, new.name, new.agent, new.metadata_text "
        "FROM history_session_search_key WHERE session_id = new.id; END",
        "DROP TRIGGER history_session_search_update",
    ),
    (
        "CREATE TRIGGER history_session_search_delete AFTER DELETE ON history_session BEGIN "
        "INSERT INTO history_session_search (history_session_search, rowid, id, name, agent, metadata_text) "
        "SELECT 'delete', key, old.id, old.name, old.agent, old.metadata_text "
        "FROM history_session_search_key WHERE session_id = old.id; "
        "DELETE FROM history_session_search_key WHERE session_id = old.id; END",
        "DROP TRIGGER history_session_search_delete",
    ),
    # Message text, keyed by the timeline entry's integer primary key.
    (
        "CREATE VIRTUAL TABLE history_message_search USING fts5("
        "text, content='', tokenize='trigram', detail='none')",
        "DROP TABLE history_message_search",
    ),
    (
        "INSERT INTO history_message_search (rowid, text) "
        "SELECT id, text FROM history_timelineentry WHERE type = 'message'",
        "",
    ),
    (
        "CREATE TRIGGER history_message_search_insert AFTER INSERT ON history_timelineentry "
        "WHEN new.type = 'message' BEGIN "
        "INSERT INTO history_message_search (rowid, text) VALUES (new.id, new.text); END",
        "DROP TRIGGER history_message_search_insert",
    ),
    (
        "CREATE TRIGGER history_message_search_update AFTER UPDATE OF type, text ON history_timelineentry BEGIN "
        "INSERT INTO history_message_search (history_message_search, rowid, text) "
        "SELECT 'delete', old.id, old.text WHERE old.type = 'message'; "
        "INSERT INTO history_message_search (rowid, text) SELECT new.id, new.text WHERE new.type = 'message'; END",
        "DROP TRIGGER history_message_search_update",
    ),
    (
        "CREATE TRIGGER history_message_search_delete AFTER DELETE ON history_timelineentry "
        "WHEN old.type = 'message' BEGIN "
        "INSERT INTO history_message_search (history_message_search, rowid, text) "
        "VALUES ('delete', old.id, old.text); END",
        "DROP TRIGGER history_message_search_delete",
    ),
]


class TrigramExtensionOnPostgreSQL(TrigramExtension):
    """Django's operation skips other databases on the way forward only."""

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


def statements(schema_editor):
    return {"postgresql": POSTGRESQL, "sqlite": SQLITE}.get(schema_editor.connection.vendor, [])


def create_search_indexes(apps, schema_editor):
    for create, _ in statements(schema_editor):
        schema_editor.execute(create)


def drop_search_indexes(apps, schema_editor):
    for _, drop in reversed(statements(schema_editor)):
        if drop:
            schema_editor.execute(drop)


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0003_approvers_group"),
    ]

    operations = [
        TrigramExtensionOnPostgreSQL(),
        migrations.RunPython(create_search_indexes, drop_search_indexes),
        migrations.AddIndex(
            model_name="session",
            index=models.Index(
                condition=models.Q(("waiting_count__gt", 0)),
                fields=["-updated_at"],
                name="session_waiting_updated",
            ),
        ),
    ]

"""PostgreSQL's trigram index of the sessions' fields indexes the session id a search compares, not the key.

Since projects (0009) a session's primary key is its project's key (``project/session id``, the session id
alone in the default project), and a search compares ``session_id`` (``history.matching``). The index built
by 0004 held ``upper(id)``: no expression of the search's ``OR`` of four fields could then be read from it,
so every search read every session of the table. At 100,000 sessions that was 50 to 90 ms of each search.

SQLite's FTS5 table keeps the key: the key holds the session id, so its trigram look-up still finds every
session the search does (and a few more, which ``icontains`` then drops). Nothing changes there.
"""

from django.db import migrations


def index_of(column):
    # Dropped first, then built again under the same name, which docs/search.md and the plans show.
    expressions = (f"upper({column}::text)", "upper(name::text)", "upper(agent::text)", "upper(metadata_text)")
    indexed = ", ".join(f"{expression} gin_trgm_ops" for expression in expressions)
    return [
        "DROP INDEX history_session_search",
        f"CREATE INDEX history_session_search ON history_session USING gin ({indexed})",
    ]


def by_session_id(apps, schema_editor):
    _index(schema_editor, "session_id")


def by_key(apps, schema_editor):
    _index(schema_editor, "id")


def _index(schema_editor, column):
    if schema_editor.connection.vendor == "postgresql":
        for statement in index_of(column):
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0021_usage_hours_from_rows"),
    ]

    operations = [migrations.RunPython(by_session_id, by_key)]

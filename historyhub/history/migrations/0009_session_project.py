"""Sessions belong to projects, and a session's id is unique within its project.

Every existing session moves into the project ``default``. Its key (the primary key every item, timeline row,
client action, operation and run points at) stays as it was: keys are ``<project>/<id>`` except in
``default``, whose sessions keep their bare id (historyhub.lib.session_keys), so no row of those tables is
rewritten. The session table gains the project and the id within it, copied from the key, and a check that
keeps the three in step; its indexes lead with the project now, since every list is one project's.
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.db.models.lookups import Contains, StartsWith

from historyhub.history.migrations._search_triggers import keep_session_search_triggers

IN_DEFAULT_PROJECT = models.Q(project_id="default")
# Every column that holds a session's key.
KEY_COLUMNS = [
    ("history_session", "id"),
    ("history_session", "parent_id"),
    ("history_item", "session_id"),
    ("history_timelineentry", "session_id"),
    ("history_clientaction", "session_id"),
    ("history_operation", "session_id"),
    ("runs_run", "session_id"),
]


def _retype_keys(schema_editor, length):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, column in KEY_COLUMNS:
        schema_editor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE varchar({length})')


def widen_keys(apps, schema_editor):
    _retype_keys(schema_editor, 401)


def narrow_keys(apps, schema_editor):
    _retype_keys(schema_editor, 200)
PROJECT_PREFIX = Concat(F("project_id"), Value("/"))


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0008_pop_takes_everything_back"),
        ("projects", "0001_initial"),
        # runs_run.session_id holds a key too.
        ("runs", "0002_no_redundant_session_index"),
    ]

    operations = keep_session_search_triggers(
        migrations.RemoveIndex(model_name="session", name="session_updated"),
        migrations.RemoveIndex(model_name="session", name="session_agent_updated"),
        migrations.RemoveIndex(model_name="session", name="session_run_status_updated"),
        migrations.RemoveIndex(model_name="session", name="session_waiting_updated"),
        migrations.AddField(
            model_name="session",
            name="project",
            field=models.ForeignKey(
                db_index=False,
                default="default",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="sessions",
                to="projects.project",
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="session",
            name="session_id",
            field=models.CharField(default="", help_text="The session's id in its project.", max_length=200),
            preserve_default=False,
        ),
        migrations.RunSQL(
            "UPDATE history_session SET session_id = id", reverse_sql=migrations.RunSQL.noop, elidable=False
        ),
        # A key holds a project id, "/" and a session id: up to 401 characters. SQLite does not hold a text
        # column to its length, and PostgreSQL widens a varchar in place, without rewriting a row or an index:
        # Django's own AlterField would rebuild every table that points at a session.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="session",
                    name="id",
                    field=models.CharField(max_length=401, primary_key=True, serialize=False),
                )
            ],
            database_operations=[migrations.RunPython(widen_keys, narrow_keys)],
        ),
        migrations.AddConstraint(
            model_name="session",
            constraint=models.UniqueConstraint(fields=("project", "session_id"), name="session_unique_id_in_project"),
        ),
        migrations.AddConstraint(
            model_name="session",
            constraint=models.CheckConstraint(
                condition=(IN_DEFAULT_PROJECT & models.Q(id=F("session_id")))
                | (~IN_DEFAULT_PROJECT & models.Q(id=Concat(PROJECT_PREFIX, F("session_id")))),
                name="session_key_is_project_and_id",
            ),
        ),
        migrations.AddConstraint(
            model_name="session",
            constraint=models.CheckConstraint(
                condition=models.Q(parent__isnull=True)
                | (IN_DEFAULT_PROJECT & ~models.Q(Contains(F("parent_id"), Value("/"))))
                | (~IN_DEFAULT_PROJECT & models.Q(StartsWith(F("parent_id"), PROJECT_PREFIX))),
                name="session_parent_in_project",
            ),
        ),
        migrations.AddIndex(
            model_name="session", index=models.Index(fields=["project", "-updated_at"], name="session_updated")
        ),
        migrations.AddIndex(
            model_name="session",
            index=models.Index(fields=["project", "agent", "-updated_at"], name="session_agent_updated"),
        ),
        migrations.AddIndex(
            model_name="session",
            index=models.Index(fields=["project", "run_status", "-updated_at"], name="session_run_status_updated"),
        ),
        migrations.AddIndex(
            model_name="session",
            index=models.Index(
                condition=models.Q(("waiting_count__gt", 0)),
                fields=["project", "-updated_at"],
                name="session_waiting_updated",
            ),
        ),
    )

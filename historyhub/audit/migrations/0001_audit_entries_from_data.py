"""The audit log's model moves from the data app to this one; its table and rows stay as they are.

State only: the table keeps its name (``data_auditentry``), and the content type (with its permissions) is
re-pointed at this app, so nothing is copied and nothing on disk changes.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


def content_type_to(app_label):
    def move(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        source = "data" if app_label == "audit" else "audit"
        ContentType.objects.using(schema_editor.connection.alias).filter(app_label=source, model="auditentry").update(
            app_label=app_label
        )

    return move


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("data", "0001_audit_log"),
        ("projects", "0002_members_of_default"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEntry",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "actor",
                            models.CharField(
                                help_text='A person\'s username, "api key: <name>" or "retention".', max_length=200
                            ),
                        ),
                        ("action", models.CharField(max_length=64)),
                        (
                            "target",
                            models.CharField(
                                blank=True, default="", help_text="What was changed, by its id.", max_length=500
                            ),
                        ),
                        ("details_json", models.TextField(default="{}")),
                        (
                            "project",
                            models.ForeignKey(
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="audit_entries",
                                to="projects.project",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "data_auditentry",
                        "verbose_name_plural": "audit entries",
                        "indexes": [
                            models.Index(fields=["project", "-at"], name="audit_by_time"),
                            models.Index(fields=["project", "action", "-at"], name="audit_by_action"),
                            models.Index(fields=["project", "actor", "-at"], name="audit_by_actor"),
                            models.Index(fields=["at"], name="audit_pruning"),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_to("audit"), content_type_to("data")),
    ]

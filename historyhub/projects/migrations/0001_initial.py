"""Projects, their members and groups; an installation starts with the project ``default``."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

DEFAULT = "default"


def create_default_project(apps, schema_editor):
    Project = apps.get_model("projects", "Project")
    Project.objects.get_or_create(id=DEFAULT, defaults={"name": "Default"})


class Migration(migrations.Migration):
    initial = True

    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.CreateModel(
            name="Project",
            fields=[
                (
                    "id",
                    models.CharField(
                        help_text="Follows the session id rules.", max_length=200, primary_key=True, serialize=False
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                (
                    "retention_days",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Sessions not updated for this many days are deleted; empty keeps them.",
                        null=True,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={"ordering": ["id"]},
        ),
        migrations.CreateModel(
            name="Group",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200)),
                (
                    "members",
                    models.ManyToManyField(blank=True, related_name="project_groups", to=settings.AUTH_USER_MODEL),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="groups", to="projects.project"
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
                "constraints": [models.UniqueConstraint(fields=("project", "name"), name="group_unique_name")],
            },
        ),
        migrations.CreateModel(
            name="Membership",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("viewer", "viewer (reads)"),
                            ("approver", "approver (reads and decides)"),
                            ("admin", "admin (also manages the project)"),
                        ],
                        default="viewer",
                        max_length=16,
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="memberships", to="projects.project"
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["user"], name="membership_by_user")],
                "constraints": [models.UniqueConstraint(fields=("project", "user"), name="membership_unique_person")],
            },
        ),
        migrations.RunPython(create_default_project, migrations.RunPython.noop),
    ]

"""Every key belongs to a project; keys made before projects existed belong to ``default``."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("apikeys", "0002_scopes"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="project",
            field=models.ForeignKey(
                default="default",
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_keys",
                to="projects.project",
            ),
            preserve_default=False,
        ),
    ]

"""The Approvers group: the people who may approve or reject client actions (docs/operations.md).

A production install has it from its first migrate; an administrator adds people to it.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Approvers"


def create_approvers(apps, schema_editor):
    # Permissions are made after migrations run; this one is needed now.
    history = apps.get_app_config("history")
    history.models_module = True
    create_permissions(history, apps=apps, verbosity=0)
    history.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    decide = Permission.objects.get(content_type__app_label="history", codename="decide_clientaction")
    group, _ = Group.objects.get_or_create(name=GROUP)
    group.permissions.add(decide)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("history", "0002_every_item_kept"),
    ]

    operations = [migrations.RunPython(create_approvers, migrations.RunPython.noop)]

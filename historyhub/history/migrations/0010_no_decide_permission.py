"""Roles in projects decide who may decide (projects 0002 turned the permission's holders into approvers),
so the ``decide_clientaction`` permission is no longer the model's."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0009_session_project"),
        ("projects", "0002_members_of_default"),
    ]

    operations = [
        migrations.AlterModelOptions(name="clientaction", options={}),
    ]

"""Keys get a list of scopes (read, write, decide, admin) instead of one of read and write.

Deciding client actions used to be part of the write scope; it is a scope of its own now, so that the agent
that asks cannot answer itself. Existing write keys get ``write,decide``, so nothing that worked stops
working; the upgrade says how many keys it changed.
"""

from django.db import migrations, models


def split_write(apps, schema_editor):
    ApiKey = apps.get_model("apikeys", "ApiKey")
    ApiKey.objects.filter(scope="read").update(scopes="read")
    granted = ApiKey.objects.filter(scope="write").update(scopes="write,decide")
    if granted:
        print(
            f"\n  API keys: {granted} existing write key{'s' if granted != 1 else ''} now "
            f"{'have' if granted != 1 else 'has'} the scopes write,decide (deciding client actions is a scope of "
            "its own now; new write keys do not decide). Revoke or reissue keys that should not decide."
        )


def join_write(apps, schema_editor):
    ApiKey = apps.get_model("apikeys", "ApiKey")
    for api_key in ApiKey.objects.all():
        scopes = set(api_key.scopes.split(","))
        api_key.scope = "read" if scopes == {"read"} else "write"
        api_key.save(update_fields=["scope"])


class Migration(migrations.Migration):
    dependencies = [("apikeys", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="scopes",
            field=models.CharField(default="write", help_text="Comma-separated: read, write, decide, admin.", max_length=64),
        ),
        migrations.RunPython(split_write, join_write),
        migrations.RemoveField(model_name="apikey", name="scope"),
    ]

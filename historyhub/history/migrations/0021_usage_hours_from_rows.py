"""Insights' usage tallies of the sessions, items and client actions already stored (docs/insights.md,
"Performance"): from here on the writes keep them (``history.usage_hours``)."""

from django.db import migrations

from historyhub.history import usage_hours


def fill(apps, schema_editor):
    Item, Session, ClientAction, UsageHour = (
        apps.get_model("history", name) for name in ("Item", "Session", "ClientAction", "UsageHour")
    )
    UsageHour.objects.all().delete()
    counted = usage_hours.recounted(Item.objects.all(), Session.objects.all(), ClientAction.objects.all())
    usage_hours.add(counted, table=UsageHour)


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0020_usage_hours"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]

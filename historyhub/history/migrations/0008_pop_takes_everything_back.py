"""What a pop needs to take everything back: where a client action's card took its place (so it shows there
again), and which write set the run status (so a pop restores it only while that is still the item's)."""

from django.db import migrations, models

from historyhub.history.migrations._search_triggers import keep_session_search_triggers


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0007_action_opened_by_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="clientaction",
            name="order",
            field=models.BigIntegerField(
                blank=True, help_text="The position its card took on the timeline, where it shows again.", null=True
            ),
        ),
        # SQLite builds history_session again to add a column that may not be null.
        *keep_session_search_triggers(
            migrations.AddField(
                model_name="session",
                name="run_status_version",
                field=models.BigIntegerField(default=0, help_text="The version of the write that set run_status."),
            ),
        ),
    ]

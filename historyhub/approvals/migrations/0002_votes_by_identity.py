"""Votes by identity (docs/api.md, "A decider is a person or a key, never a label"): each vote says through what
channel it came (``via``), and the one-vote-per-decider rule moves from the label ``by`` to the person or key.

Existing votes keep their person or key; ``via`` is read from their label ("slack: <name>" came from Slack, a key's
vote through the API, every other one from the dashboard). No vote is lost: where one person voted twice on an
action under two labels (the dashboard and Slack, before this change), the earlier vote keeps the identity and the
later ones are kept as a record that counts for nobody (``0003_votes_unique_by_identity`` then holds)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

SLACK_LABEL = "slack: "


def via_from_labels(apps, schema_editor):
    Vote = apps.get_model("approvals", "Vote")
    Vote.objects.filter(api_key__isnull=False).update(via="api")
    Vote.objects.filter(api_key__isnull=True, by__startswith=SLACK_LABEL).update(via="slack")
    Vote.objects.filter(api_key__isnull=True).exclude(by__startswith=SLACK_LABEL).update(via="dashboard")
    seen = set()
    for vote in Vote.objects.filter(models.Q(user__isnull=False) | models.Q(api_key__isnull=False)).order_by(
        "action_id", "at", "pk"
    ):
        identity = (vote.action_id, "user", vote.user_id) if vote.user_id else (vote.action_id, "key", vote.api_key_id)
        if identity in seen:
            Vote.objects.filter(pk=vote.pk).update(user=None, api_key=None)
        seen.add(identity)


class Migration(migrations.Migration):
    dependencies = [
        ("apikeys", "0004_key_maker"),
        ("approvals", "0001_policies_and_votes"),
        ("history", "0013_escalation_time"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="vote", name="vote_once_per_decider"),
        migrations.AddField(
            model_name="vote",
            name="via",
            field=models.CharField(
                choices=[
                    ("dashboard", "Dashboard"),
                    ("slack", "Slack"),
                    ("email", "Email"),
                    ("api", "API"),
                    ("admin", "Admin"),
                ],
                default="dashboard",
                help_text="The channel the decision came through.",
                max_length=16,
            ),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="vote",
            name="api_key",
            field=models.ForeignKey(
                blank=True,
                help_text="The key the decision came with, if any.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="apikeys.apikey",
            ),
        ),
        migrations.AlterField(
            model_name="vote",
            name="by",
            field=models.CharField(help_text="As resolvedBy names a decider: a display label.", max_length=200),
        ),
        migrations.AlterField(
            model_name="vote",
            name="user",
            field=models.ForeignKey(
                blank=True,
                help_text="The person who decided: directly, or through a key they made.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(via_from_labels, migrations.RunPython.noop),
    ]

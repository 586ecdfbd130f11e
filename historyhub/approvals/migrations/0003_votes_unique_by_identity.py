"""One vote per decider and action, on identities (docs/api.md, "A decider is a person or a key"): a person's votes
(their own, or through a key they made), and a key's that no person made. In a migration of its own, after
``0002_votes_by_identity`` wrote its rows: PostgreSQL builds the indexes in a transaction without pending row
changes."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("approvals", "0002_votes_by_identity"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="vote",
            constraint=models.UniqueConstraint(
                condition=models.Q(("user__isnull", False)), fields=("action", "user"), name="vote_once_per_person"
            ),
        ),
        migrations.AddConstraint(
            model_name="vote",
            constraint=models.UniqueConstraint(
                condition=models.Q(("api_key__isnull", False), ("user__isnull", True)),
                fields=("action", "api_key"),
                name="vote_once_per_key",
            ),
        ),
    ]

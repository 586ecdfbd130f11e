"""The Slack app is the installation's (docs/notifications.md, "Slack"): its bot token and signing secret move
from each slack channel to one ``SlackApp`` row that operators keep (or SLACK_BOT_TOKEN / SLACK_SIGNING_SECRET),
so no project admin can sign a click.

Nothing is lost: the first slack channel's credentials become the installation's, and the upgrade says which
channel's they were and which other channels had different ones (dropped: those channels now post with the
installation's app). Links of Slack users to people made without proof (a member id typed on a profile page, or
an email Slack reported) are removed, and the upgrade says how many: each person links again, with proof, by
clicking a button in Slack. A link now names the Slack user's workspace too.
"""

import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import historyhub.encryption


def adopt_the_first_channels_credentials(apps, schema_editor):
    Channel, SlackApp = apps.get_model("notifications", "Channel"), apps.get_model("notifications", "SlackApp")
    with_credentials = list(
        Channel.objects.filter(kind="slack")
        .exclude(slack_token="", slack_signing_secret="")
        .order_by("created_at", "id")
    )
    if not with_credentials:
        return
    app = SlackApp.objects.filter(pk=1).first()
    if app is None:
        first = with_credentials[0]
        app = SlackApp.objects.create(pk=1, bot_token=first.slack_token, signing_secret=first.slack_signing_secret)
        print(
            f'\n  Slack: the bot token and signing secret of the slack channel "{first.name}" ({first.pk}, project '
            f"{first.project_id}) are now the installation's Slack app (admin: Notifications → Slack app)."
        )
    differing = [
        channel
        for channel in with_credentials
        if (channel.slack_token, channel.slack_signing_secret) != (app.bot_token, app.signing_secret)
    ]
    if differing:
        named = ", ".join(f'"{channel.name}" ({channel.pk}, project {channel.project_id})' for channel in differing)
        print(
            f"\n  Slack: {len(differing)} other slack channel{'s' if len(differing) != 1 else ''}' credentials "
            f"differed and were dropped: {named}. They now post with the installation's Slack app: install it in "
            "their workspace and invite its bot to their Slack channels, or set SLACK_BOT_TOKEN and "
            "SLACK_SIGNING_SECRET to the app you mean."
        )
    if settings.SLACK_BOT_TOKEN or settings.SLACK_SIGNING_SECRET:
        print("\n  Slack: SLACK_BOT_TOKEN / SLACK_SIGNING_SECRET are set in the environment and win over the admin's.")


def give_every_slack_channel_the_apps_credentials(apps, schema_editor):
    Channel, SlackApp = apps.get_model("notifications", "Channel"), apps.get_model("notifications", "SlackApp")
    app = SlackApp.objects.filter(pk=1).first()
    if app is not None:
        Channel.objects.filter(kind="slack").update(slack_token=app.bot_token, slack_signing_secret=app.signing_secret)


def remove_the_links_made_without_proof(apps, schema_editor):
    removed, _ = apps.get_model("notifications", "SlackUserLink").objects.all().delete()
    if removed:
        print(
            f"\n  Slack: {removed} link{'s' if removed != 1 else ''} of Slack users to people, made without proof "
            f"(a member id typed in, or an email Slack reported), {'were' if removed != 1 else 'was'} removed. Each "
            "person links again by clicking Approve or Reject in Slack and confirming the link Slack shows them."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0002_secrets_encrypted_at_rest"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="SlackApp",
            fields=[
                ("id", models.PositiveSmallIntegerField(default=1, editable=False, primary_key=True, serialize=False)),
                (
                    "bot_token",
                    historyhub.encryption.EncryptedTextField(
                        blank=True, default="", help_text="xoxb-…; SLACK_BOT_TOKEN, when set, wins."
                    ),
                ),
                (
                    "signing_secret",
                    historyhub.encryption.EncryptedTextField(
                        blank=True,
                        default="",
                        help_text="Verifies Slack's requests; SLACK_SIGNING_SECRET, when set, wins.",
                    ),
                ),
            ],
            options={
                "verbose_name": "Slack app",
                "constraints": [models.CheckConstraint(condition=models.Q(("id", 1)), name="slack_app_is_one_row")],
            },
        ),
        migrations.RunPython(adopt_the_first_channels_credentials, give_every_slack_channel_the_apps_credentials),
        migrations.RemoveField(model_name="channel", name="slack_token"),
        migrations.RemoveField(model_name="channel", name="slack_signing_secret"),
        migrations.RunPython(remove_the_links_made_without_proof, migrations.RunPython.noop),
        migrations.AddField(
            model_name="slackuserlink",
            name="team_id",
            field=models.CharField(default="", help_text="Slack's workspace id, T…", max_length=40),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="slackuserlink",
            name="team_name",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.AddField(
            model_name="slackuserlink",
            name="slack_user_name",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.AddField(
            model_name="slackuserlink",
            name="created_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="slackuserlink",
            name="slack_user_id",
            field=models.CharField(help_text="Slack's user id, U…", max_length=40),
        ),
        migrations.AddConstraint(
            model_name="slackuserlink",
            constraint=models.UniqueConstraint(fields=("team_id", "slack_user_id"), name="slack_user_linked_once"),
        ),
        migrations.CreateModel(
            name="SlackLinkRequest",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("team_id", models.CharField(max_length=40)),
                ("slack_user_id", models.CharField(max_length=40)),
                ("team_name", models.CharField(blank=True, default="", max_length=200)),
                ("slack_user_name", models.CharField(blank=True, default="", max_length=200)),
                (
                    "token_hash",
                    models.CharField(help_text="SHA-256 of the link's token, hex.", max_length=64, unique=True),
                ),
                ("expires_at", models.DateTimeField()),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("team_id", "slack_user_id"), name="slack_link_request_per_user")
                ],
            },
        ),
    ]

"""Webhook signing secrets and Slack credentials are stored encrypted (docs/configuration.md, "Encryption at
rest"): the columns become text wide enough for a token, then every stored value is encrypted with the first
of FIELD_ENCRYPTION_KEYS, and the upgrade says how many. Reversed, the values are decrypted again first."""

from django.db import migrations

import historyhub.encryption

SECRETS = ("secret", "previous_secret", "slack_token", "slack_signing_secret")


class Migration(migrations.Migration):
    dependencies = [("notifications", "0001_outbox")]

    operations = [
        migrations.AlterField(
            model_name="channel",
            name="secret",
            field=historyhub.encryption.EncryptedTextField(
                blank=True, default="", help_text="Webhooks: the signing secret.", max_length=100
            ),
        ),
        migrations.AlterField(
            model_name="channel",
            name="previous_secret",
            field=historyhub.encryption.EncryptedTextField(blank=True, default="", max_length=100),
        ),
        migrations.AlterField(
            model_name="channel",
            name="slack_token",
            field=historyhub.encryption.EncryptedTextField(blank=True, default="", max_length=500),
        ),
        migrations.AlterField(
            model_name="channel",
            name="slack_signing_secret",
            field=historyhub.encryption.EncryptedTextField(blank=True, default="", max_length=500),
        ),
        historyhub.encryption.encrypting("notifications_channel", *SECRETS),
    ]

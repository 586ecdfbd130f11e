"""Migration 0002 makes the Slack app the installation's without losing credentials: the first slack channel's
token and signing secret become the installation's ``SlackApp``, the upgrade says whose they were and which
channels had others, and links made without proof are removed, said too."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from historyhub.notifications import slack_app
from historyhub.notifications.models import Channel, SlackApp, SlackUserLink
from tests.support.migrations import latest, migrate

BEFORE = ("notifications", "0001_outbox")


def slack_channel(OldChannel, name, token, secret, project="default", minutes_ago=0):
    channel = OldChannel.objects.create(
        project_id=project, kind="slack", name=name, slack_channel="C1", slack_token=token, slack_signing_secret=secret
    )
    # created_at is set on insert; the order of creation is what the migration reads.
    OldChannel.objects.filter(pk=channel.pk).update(created_at=timezone.now() - timedelta(minutes=minutes_ago))
    return channel


@pytest.mark.django_db(transaction=True)
def test_the_first_channels_credentials_become_the_installations_and_the_upgrade_says_so(capsys, settings):
    settings.SLACK_BOT_TOKEN = settings.SLACK_SIGNING_SECRET = ""
    old = migrate([BEFORE])
    OldChannel, OldLink = old.get_model("notifications", "Channel"), old.get_model("notifications", "SlackUserLink")
    OldChannel.objects.create(project_id="default", kind="webhook", name="ops", url="https://example.com/")
    first = slack_channel(OldChannel, "approvals", "xoxb-first", "secret-first", minutes_ago=30)
    same = slack_channel(OldChannel, "refunds", "xoxb-first", "secret-first", minutes_ago=20)
    other = slack_channel(OldChannel, "elsewhere", "xoxb-other", "secret-other", minutes_ago=10)
    person = old.get_model("auth", "User").objects.create(username="ana")
    OldLink.objects.create(user=person, slack_user_id="U1")
    capsys.readouterr()

    migrate(latest())

    app = SlackApp.objects.get()
    assert (app.bot_token, app.signing_secret) == ("xoxb-first", "secret-first")
    assert slack_app.credentials() == ("xoxb-first", "secret-first")
    printed = capsys.readouterr().out
    assert f'the slack channel "approvals" ({first.pk}, project default) are now the installation\'s' in printed
    assert f'1 other slack channel\' credentials differed and were dropped: "elsewhere" ({other.pk}' in printed
    assert same.pk not in printed
    assert "1 link of Slack users to people, made without proof" in printed
    assert "xoxb-" not in printed and "secret-" not in printed
    # Every channel stays, naming only its Slack channel.
    assert sorted(Channel.objects.values_list("name", flat=True)) == ["approvals", "elsewhere", "ops", "refunds"]
    assert {field.name for field in Channel._meta.get_fields()}.isdisjoint({"slack_token", "slack_signing_secret"})
    assert not SlackUserLink.objects.exists()
    assert get_user_model().objects.filter(username="ana").exists()


@pytest.mark.django_db(transaction=True)
def test_an_installation_without_slack_channels_gets_no_slack_app_and_the_upgrade_says_nothing(capsys):
    migrate([BEFORE])
    capsys.readouterr()

    migrate(latest())

    assert not SlackApp.objects.exists()
    assert "Slack" not in capsys.readouterr().out


@pytest.mark.django_db(transaction=True)
def test_going_back_gives_every_slack_channel_the_installations_credentials():
    old = migrate([BEFORE])
    slack_channel(old.get_model("notifications", "Channel"), "approvals", "xoxb-first", "secret-first")
    migrate(latest())

    back = migrate([BEFORE])

    [channel] = back.get_model("notifications", "Channel").objects.all()
    assert (channel.slack_token, channel.slack_signing_secret) == ("xoxb-first", "secret-first")
    migrate(latest())

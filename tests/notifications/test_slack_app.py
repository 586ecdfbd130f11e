"""The installation's Slack app: its bot token and signing secret come from the operator's settings
(SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET), else from the one Slack app operators keep in the admin, whose secrets
are never shown; Slack links are seen and removed there, never made."""

import pytest
from django.test import Client
from django.urls import reverse

from historyhub.history import client_actions
from historyhub.notifications.models import SlackApp
from historyhub.projects.models import Role
from tests.notifications.conftest import SLACK_BOT_TOKEN, deliver_due
from tests.support.actors import logged_in, make_member, post
from tests.support.slack_clicks import ephemerals, link_in, payload, send

pytestmark = pytest.mark.django_db
ADMINS_SECRET = "secret-kept-in-the-admin"


@pytest.fixture
def operator_client(db):
    operator = make_member("root", Role.ADMIN)
    operator.is_staff = operator.is_superuser = True
    operator.save()
    client = Client()
    client.force_login(operator)
    return client


@pytest.fixture
def kept_in_the_admin(slack, settings, operator_client):
    """No credentials in the environment: the operator sets them in the admin."""
    settings.SLACK_BOT_TOKEN = settings.SLACK_SIGNING_SECRET = ""
    add = reverse("admin:notifications_slackapp_add")
    answer = operator_client.post(add, {"bot_token": SLACK_BOT_TOKEN, "signing_secret": ADMINS_SECRET})
    assert answer.status_code == 302, answer.content
    return SlackApp.objects.get()


def open_and_post(api, session_id, slack):
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "issue_refund", "arguments": {}})
    deliver_due()
    [message] = slack.called("chat.postMessage")
    return message


def test_the_admins_slack_app_posts_and_verifies_when_the_environment_sets_none(
    kept_in_the_admin, api, session_id, slack_channel, slack
):
    message = open_and_post(api, session_id, slack)
    assert message["headers"]["Authorization"] == f"Bearer {SLACK_BOT_TOKEN}"
    assert send(payload(message, "approve"), ADMINS_SECRET).status_code == 200
    path = link_in(ephemerals(slack)[-1][2]).removeprefix("https://historyhub.example.com")
    post(logged_in(make_member("ana", Role.APPROVER)), path, {})

    assert send(payload(message, "approve"), ADMINS_SECRET).status_code == 200

    assert client_actions.get(session_id, "c1").resolved_by == "ana"


def test_the_environment_wins_over_the_admin(kept_in_the_admin, api, session_id, slack_channel, slack, settings):
    message = open_and_post(api, session_id, slack)
    settings.SLACK_SIGNING_SECRET = "the-operators-environment-secret"

    assert send(payload(message, "approve"), ADMINS_SECRET).status_code == 401
    assert send(payload(message, "approve"), "the-operators-environment-secret").status_code == 200


def test_the_admin_never_shows_the_secrets_keeps_them_when_left_empty_and_holds_one_app(
    kept_in_the_admin, operator_client
):
    change = reverse("admin:notifications_slackapp_change", args=[SlackApp.ONLY])
    page = operator_client.get(change).content.decode()
    assert SLACK_BOT_TOKEN not in page and ADMINS_SECRET not in page

    assert operator_client.post(change, {"bot_token": "", "signing_secret": "a-new-secret"}).status_code == 302
    assert (SlackApp.objects.get().bot_token, SlackApp.objects.get().signing_secret) == (
        SLACK_BOT_TOKEN,
        "a-new-secret",
    )
    assert operator_client.get(reverse("admin:notifications_slackapp_add")).status_code == 403


def test_slack_links_are_removed_in_the_admin_but_never_made_there(operator_client):
    assert operator_client.get(reverse("admin:notifications_slackuserlink_add")).status_code == 403
    assert operator_client.get(reverse("admin:notifications_slackuserlink_changelist")).status_code == 200

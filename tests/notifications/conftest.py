"""Channels, receivers and the worker, for the notification tests: webhooks reach a real HTTP server on
localhost, so private destinations are allowed here (docs/notifications.md, "SSRF")."""

import pytest

from historyhub.notifications.delivery_worker import Worker
from tests.support.slack_web_api import SlackWebApi
from tests.support.tiny_server import TinyServer

EVERY_EVENT = [
    "client_action.opened",
    "client_action.voted",
    "client_action.escalated",
    "client_action.decided",
    "client_action.expired",
    "client_action.completed",
]


@pytest.fixture(autouse=True)
def private_networks_allowed(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_RETRY_DELAYS = [0, 0, 0]
    settings.HISTORYHUB_PUBLIC_URL = "https://historyhub.example.com"
    # The worker in the test's own process sends in its thread, inside the test's transaction; the
    # workers of test_delivery_worker run as processes of their own, with their sender threads.
    settings.NOTIFICATIONS_SEND_THREADS = 1


@pytest.fixture
def receiver():
    """A local HTTP server answering 200 to everything, recording what it received."""
    with TinyServer([]) as server:
        yield server


@pytest.fixture
def webhook(admin_api, receiver):
    """A webhook channel of the default project wanting every event; its answer carries the secret."""
    answer = admin_api.post("channels", {"kind": "webhook", "name": "ops", "events": EVERY_EVENT, "url": receiver.url})
    assert answer.status_code == 201, answer.content
    return answer.json()


def deliver_due():
    """What a worker sends now, in this process."""
    return Worker().deliver_due()


SLACK_BOT_TOKEN = "xoxb-installation-token"
SLACK_SIGNING_SECRET = "the-installations-signing-secret"


@pytest.fixture
def slack(settings):
    """A local stand-in for Slack's Web API at SLACK_API_URL, and the installation's Slack app set by the
    operator's settings."""
    with SlackWebApi(SLACK_BOT_TOKEN) as stand_in:
        settings.SLACK_API_URL = stand_in.url + "/"
        settings.SLACK_BOT_TOKEN = SLACK_BOT_TOKEN
        settings.SLACK_SIGNING_SECRET = SLACK_SIGNING_SECRET
        yield stand_in


@pytest.fixture
def slack_channel(admin_api, slack):
    """A slack channel of the default project posting in the Slack channel C42."""
    answer = admin_api.post(
        "channels",
        {
            "kind": "slack",
            "name": "approvals",
            "events": ["client_action.opened", "client_action.voted", "client_action.decided"],
            "slackChannel": "C42",
        },
    )
    assert answer.status_code == 201, answer.content
    return answer.json()

"""The installation's Slack app (docs/notifications.md, "Slack"): one bot token and one signing secret for every
project, set by operators, never by a project admin, so nobody but the operators can sign a click.

Each comes from the environment (``SLACK_BOT_TOKEN``, ``SLACK_SIGNING_SECRET``), else from the one ``SlackApp``
row operators edit in the admin. Everything that speaks to Slack or checks Slack's requests reads them here.
"""

from typing import NamedTuple

from django.conf import settings
from slack_sdk import WebClient

from historyhub.notifications.models import SlackApp


class Credentials(NamedTuple):
    bot_token: str
    signing_secret: str


def credentials() -> Credentials:
    """The installation's token and secret; either is "" when neither the environment nor the admin sets it."""
    token, secret = settings.SLACK_BOT_TOKEN.strip(), settings.SLACK_SIGNING_SECRET.strip()
    if not (token and secret):
        row = SlackApp.objects.filter(pk=SlackApp.ONLY).first()
        if row is not None:
            token, secret = token or row.bot_token.strip(), secret or row.signing_secret.strip()
    return Credentials(token, secret)


def web_client(timeout: int) -> WebClient:
    """Slack's Web API at ``SLACK_API_URL``, with the installation's bot token: the only way the server speaks to
    Slack, never through an address a request names."""
    return WebClient(token=credentials().bot_token, base_url=settings.SLACK_API_URL, timeout=timeout)

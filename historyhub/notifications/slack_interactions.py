"""A click on a Slack message's Approve or Reject button (docs/notifications.md, "Slack").

Slack POSTs ``payload=<json>`` signed with the app's signing secret. The button's value names the channel
whose secret verifies it (``transports.slack.button_value``); an unsigned, forged or stale request (more
than five minutes, as ``slack-sdk``'s verifier checks) is refused with 401 and decides nothing. The Slack
user acts as the HistoryHub person linked to them (``SlackUserLink``), through ``client_actions.decide``
and the decider rule, as on the dashboard; whoever is not linked or may not decide is told so, in Slack,
through the interaction's ``response_url``. The message itself is updated by the ``decided`` event.
"""

import json
import logging
from dataclasses import replace
from urllib.parse import parse_qs

from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from slack_sdk.errors import SlackClientError
from slack_sdk.signature import SignatureVerifier
from slack_sdk.webhook import WebhookClient

from historyhub.approvals.deciders import Decider
from historyhub.history import client_actions
from historyhub.history.errors import DomainError
from historyhub.notifications.models import Channel, ChannelKind, SlackUserLink
from historyhub.notifications.transports.slack import APPROVE, REJECT
from historyhub.projects import keys

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
NOT_LINKED = (
    "Your Slack user is not linked to a HistoryHub person, so nothing was decided. "
    "Link it on your notifications page in HistoryHub."
)


@csrf_exempt
@require_POST
def interactions(request):
    if len(request.body) > MAX_BODY_BYTES:
        return HttpResponse("Too large.", status=413, content_type="text/plain")
    click = read_click(request.body)
    if click is None:
        return HttpResponse("Not an interaction of ours.", status=400, content_type="text/plain")
    channel = Channel.objects.filter(pk=click["channel"], kind=ChannelKind.SLACK).first()
    verifier = SignatureVerifier(channel.slack_signing_secret) if channel and channel.slack_signing_secret else None
    if verifier is None or not verifier.is_valid_request(request.body, dict(request.headers)):
        return HttpResponse("The request's Slack signature does not verify.", status=401, content_type="text/plain")
    tell(click["response_url"], decide(channel, click))
    return HttpResponse(status=200)


def read_click(body):
    """The click's parts, or None when the body is not a button click on one of our messages."""
    try:
        payload = json.loads(parse_qs(body.decode())["payload"][0])
        action = payload["actions"][0]
        value = json.loads(action["value"])
        return {
            "decision": action["action_id"],
            "slack_user": payload["user"]["id"],
            "response_url": payload.get("response_url", ""),
            "channel": value["channel"],
            "session": value["session"],
            "call_id": value["callId"],
        }
    except (KeyError, IndexError, TypeError, ValueError, UnicodeDecodeError):
        return None


def decide(channel, click):
    """Decide as the linked person would on the dashboard; what to tell the Slack user."""
    if click["decision"] not in (APPROVE, REJECT) or keys.project_of(click["session"]) != channel.project_id:
        return "That action does not exist in this project."
    link = SlackUserLink.objects.select_related("user").filter(slack_user_id=click["slack_user"]).first()
    if link is None or not link.user.is_active:
        return NOT_LINKED
    person = link.user
    decider = replace(Decider.person(person), name=f"slack: {person.get_username()}")
    try:
        resolved = client_actions.decide(
            click["session"], click["call_id"], decision=click["decision"], decider=decider
        )
    except DomainError as error:
        return f"Nothing was decided: {error.message}"
    verb = "approved" if click["decision"] == APPROVE else "rejected"
    return f"You {verb} {resolved.action.name}." if resolved.changed else f"It was already {verb}."


def tell(response_url, text):
    """An ephemeral answer to the person who clicked (Slack reads no answer body of a button click)."""
    if not response_url.startswith(("https://", "http://")):
        return
    try:
        WebhookClient(response_url, timeout=10).send(text=text, response_type="ephemeral", replace_original=False)
    except (SlackClientError, OSError) as error:
        log.warning("Slack: telling the person how their click went failed: %s", error)

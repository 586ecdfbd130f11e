"""A click on a Slack message's Approve or Reject button (docs/notifications.md, "Slack").

Slack POSTs ``payload=<json>`` signed with the app's signing secret. The button's value names the channel
whose secret verifies it (``transports.slack.button_value``); an unsigned, forged or stale request (more
than five minutes, as ``slack-sdk``'s verifier checks) is refused with 401 and decides nothing. The Slack
user acts as the HistoryHub person linked to them (``SlackUserLink``), or else as the one member of the
channel's project whose email Slack reports as confirmed for them (``users.info``), remembered as their link;
through ``client_actions.decide`` and the decider rule, as on the dashboard. Whoever is neither, or may not
decide, is told so, in Slack, through the interaction's ``response_url``. The message itself is updated by
the ``decided`` event.
"""

import json
import logging
from dataclasses import replace
from urllib.parse import parse_qs

from django.contrib.auth import get_user_model
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
from historyhub.notifications.transports import slack
from historyhub.notifications.transports.slack import APPROVE, REJECT
from historyhub.projects import access, keys

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
    """Decide as the person the Slack user acts as would on the dashboard; what to tell the Slack user."""
    if click["decision"] not in (APPROVE, REJECT) or keys.project_of(click["session"]) != channel.project_id:
        return "That action does not exist in this project."
    person = person_of(channel, click["slack_user"])
    if person is None:
        return NOT_LINKED
    decider = replace(Decider.person(person), name=f"slack: {person.get_username()}")
    try:
        resolved = client_actions.decide(
            click["session"], click["call_id"], decision=click["decision"], decider=decider
        )
    except DomainError as error:
        return f"Nothing was decided: {error.message}"
    verb = "approved" if click["decision"] == APPROVE else "rejected"
    return f"You {verb} {resolved.action.name}." if resolved.changed else f"It was already {verb}."


def person_of(channel, slack_user):
    """The active person the Slack user acts as: the one linked to them; else the member of the channel's project
    with the email Slack reports as confirmed for them, linked to them from now on; else None."""
    link = SlackUserLink.objects.select_related("user").filter(slack_user_id=slack_user).first()
    if link is None:
        person = member_with_email(channel.project_id, confirmed_email(channel, slack_user))
        if person is None:
            return None
        # Later clicks need not ask Slack. A link made meanwhile (the person's own, or a click at the same
        # time) is the one the unique Slack user id keeps, and the one that counts.
        link, _ = SlackUserLink.objects.select_related("user").get_or_create(
            slack_user_id=slack_user, defaults={"user": person}
        )
    return link.user if link.user.is_active else None


def confirmed_email(channel, slack_user):
    """The email Slack reports for its user, if Slack says it is confirmed (``users.info``, with the channel's
    bot token, which needs the scopes users:read and users:read.email); None otherwise or when Slack fails."""
    try:
        answer = slack.client(channel).users_info(user=slack_user)
    except (SlackClientError, OSError) as error:
        log.warning("Slack: users.info for %s failed: %s", slack_user, error)
        return None
    user = answer.get("user")
    if not isinstance(user, dict) or user.get("is_email_confirmed") is not True:
        return None
    profile = user.get("profile")
    email = profile.get("email") if isinstance(profile, dict) else None
    return email if isinstance(email, str) and email else None


def member_with_email(project_id, email):
    """The person with this email (in any case) if exactly one active person has it and they belong to the
    project; None otherwise: an email two people share names neither."""
    if email is None:
        return None
    people = list(get_user_model().objects.filter(email__iexact=email, is_active=True)[:2])
    if len(people) != 1 or access.role_of(people[0], project_id) is None:
        return None
    return people[0]


def tell(response_url, text):
    """An ephemeral answer to the person who clicked (Slack reads no answer body of a button click)."""
    if not response_url.startswith(("https://", "http://")):
        return
    try:
        WebhookClient(response_url, timeout=10).send(text=text, response_type="ephemeral", replace_original=False)
    except (SlackClientError, OSError) as error:
        log.warning("Slack: telling the person how their click went failed: %s", error)

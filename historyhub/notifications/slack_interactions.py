"""A click on a Slack message's Approve or Reject button (docs/notifications.md, "Slack").

Slack POSTs ``payload=<json>`` signed with the installation's signing secret (``slack_app``; never a project's):
an unsigned, forged or stale request (more than five minutes, as ``slack-sdk``'s verifier checks) is refused with
401 and decides nothing. The button's value names the action (its session's key, so its project, and its call
id). The Slack user, by workspace and user id, acts as the HistoryHub person linked to them (``slack_links``),
through ``deciding.decide`` and the decider rule, as on the dashboard. A Slack user linked to nobody is
offered a one-time link instead, and nothing is decided. Whatever the clicker is told, Slack shows to them alone
(``chat.postEphemeral``, at ``SLACK_API_URL``): nothing is ever sent to an address the request names, such as
its ``response_url``. The message itself is updated by the events the decision announces.
"""

import json
import logging
from typing import NamedTuple
from urllib.parse import parse_qs

from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from slack_sdk.errors import SlackClientError
from slack_sdk.signature import SignatureVerifier

from historyhub.approvals import deciding
from historyhub.approvals.deciders import Decider
from historyhub.approvals.decisions import DONE, Decision
from historyhub.lib.errors import DomainError
from historyhub.notifications import slack_app, slack_links
from historyhub.notifications.slack_links import LINK_VALID, SlackUser
from historyhub.notifications.transports.slack import CLICKED, escape

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
# Slack's workspace and user ids (T…, U…) are short; a link keeps them in columns of this size.
MAX_SLACK_ID = 40
# Slack wants the click answered within three seconds; telling the clicker must fit in them.
TELL_TIMEOUT_SECONDS = 2


class Click(NamedTuple):
    decision: str
    slack_user: SlackUser
    # The Slack channel the message is in, where the clicker is answered; "" if Slack did not say.
    slack_channel: str
    session: str
    call_id: str


@csrf_exempt
@require_POST
def interactions(request):
    if len(request.body) > MAX_BODY_BYTES:
        return HttpResponse("Too large.", status=413, content_type="text/plain")
    secret = slack_app.credentials().signing_secret
    if not secret or not SignatureVerifier(secret).is_valid_request(request.body, dict(request.headers)):
        return HttpResponse("The request's Slack signature does not verify.", status=401, content_type="text/plain")
    payload = read_payload(request.body)
    if payload is None:
        return HttpResponse("Not an interaction of ours.", status=400, content_type="text/plain")
    action_id = payload["actions"][0].get("action_id")
    if not isinstance(action_id, str) or action_id not in CLICKED:
        # A link button (Respond, Dismiss, Open in HistoryHub): Slack opened the dashboard; nothing to decide.
        return HttpResponse(status=200)
    click = read_click(payload, action_id)
    if click is None:
        return HttpResponse("Not an interaction of ours.", status=400, content_type="text/plain")
    tell(click, answer(click))
    return HttpResponse(status=200)


def read_payload(body):
    """The interaction's JSON, if it is a block action with at least one action; else None."""
    try:
        payload = json.loads(parse_qs(body.decode())["payload"][0])
    except (KeyError, IndexError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(payload, dict) or payload.get("type") != "block_actions":
        return None
    actions = payload.get("actions")
    if not isinstance(actions, list) or not actions or not isinstance(actions[0], dict):
        return None
    return payload


def read_click(payload, decision):
    """The click's parts, or None when it is not a click on one of our messages' deciding buttons."""
    try:
        value = json.loads(payload["actions"][0]["value"])
        user, team = payload["user"], payload.get("team") or {}
        slack_user = SlackUser(
            team_id=_text(team.get("id") or user.get("team_id")),
            user_id=_text(user["id"]),
            team_name=_text(team.get("domain", "")),
            user_name=_text(user.get("username") or user.get("name") or ""),
        )
        channel = payload.get("channel") or {}
        click = Click(
            decision, slack_user, _text(channel.get("id", "")), _text(value["session"]), _text(value["callId"])
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if not (0 < len(slack_user.team_id) <= MAX_SLACK_ID and 0 < len(slack_user.user_id) <= MAX_SLACK_ID):
        return None
    return click if click.session and click.call_id else None


def _text(value):
    if not isinstance(value, str):
        raise TypeError("a string was expected")
    return value


def answer(click):
    """Decide as the person the Slack user is linked to would on the dashboard; what to tell the Slack user."""
    link = slack_links.linked(click.slack_user)
    if link is None:
        url = slack_links.offer(click.slack_user, timezone.now())
        minutes = int(LINK_VALID.total_seconds() // 60)
        return (
            "Your Slack user is not linked to a HistoryHub person, so nothing was decided. "
            f"<{url}|Link it to your HistoryHub account> (this link works once, for {minutes} minutes), "
            "then click again."
        )
    person = link.user
    if not person.is_active:
        return "The HistoryHub person your Slack user is linked to is deactivated, so nothing was decided."
    try:
        resolved = deciding.decide(
            click.session, click.call_id, decision=click.decision, decider=Decider.person(person, via="slack")
        )
    except DomainError as error:
        return f"Nothing was decided: {escape(error.message)}"
    action, name = resolved.action, escape(resolved.action.name)
    if action.is_waiting:
        counted = "was counted" if resolved.changed else "was already counted"
        return f"Your approval of {name} {counted}; it waits for more approvals."
    verb = DONE[Decision(click.decision)].lower()
    return f"You {verb} {name}." if resolved.changed else f"It was already {verb}."


def tell(click, text):
    """Say ``text`` to the clicker alone, in the channel of the message they clicked."""
    if not click.slack_channel:
        log.warning("Slack: a click without a channel; %s was not told how it went", click.slack_user.user_id)
        return
    try:
        slack_app.web_client(timeout=TELL_TIMEOUT_SECONDS).chat_postEphemeral(
            channel=click.slack_channel, user=click.slack_user.user_id, text=text
        )
    except (SlackClientError, OSError) as error:
        log.warning("Slack: telling %s how their click went failed: %s", click.slack_user.user_id, error)

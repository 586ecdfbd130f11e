"""Slack (docs/notifications.md, "Slack"): a Block Kit message with the action and the buttons it allows, posted
when the action opens and updated in place by every later event, however it was decided.

Spoken through the installation's Slack app (``slack_app``) at ``SLACK_API_URL``. Every text Slack shows, the
fallback ``text`` included, passes through ``escape``: what agents and people wrote is shown as written, never
read as a mention, a link or a ping. A click comes back to ``slack_interactions``.
"""

import json

from django.conf import settings
from slack_sdk.errors import SlackApiError, SlackClientError

from historyhub.approvals.decisions import Decision, buttons_for
from historyhub.history.models import ClientActionStatus as Status
from historyhub.lib import previews, session_keys
from historyhub.notifications import slack_app
from historyhub.notifications.models import TEST_EVENT, SlackMessage
from historyhub.notifications.transports import Outcome
from historyhub.notifications.transports.webhook import retry_after_seconds

ARGUMENTS_PREVIEW_CHARACTERS = 2500
DESCRIPTION_PREVIEW_CHARACTERS = 500
# The decisions a click makes in Slack; the others (and edits) are made on the dashboard, by link.
CLICKED = {
    Decision.APPROVE: {"action_id": Decision.APPROVE.value, "style": "primary"},
    Decision.REJECT: {"action_id": Decision.REJECT.value, "style": "danger"},
}
OPEN = "open"


def escape(text) -> str:
    """Slack reads &, < and > as markup (mentions, links, ``<!channel>``): escaped, the text is shown as written."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def button_value(key, call_id):
    """What a click sends back: the action it decides (its session's key names the project)."""
    return json.dumps({"session": key, "callId": call_id}, separators=(",", ":"))


def summary(payload) -> str:
    """The message's fallback ``text`` (notifications, screen readers), escaped as the blocks are."""
    data = payload["data"]
    action = data["clientAction"]
    return f"{escape(data['agent'])} asks: {escape(action['name'])} ({action['status']})"


def blocks_for(payload, key):
    data = payload["data"]
    action = data["clientAction"]
    blocks = [
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": f"*{escape(data['agent'])}* asks: *{escape(action['name'])}*"},
        }
    ]
    if action.get("description"):
        description = previews.shortened(action["description"], DESCRIPTION_PREVIEW_CHARACTERS)
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": escape(description)}})
    arguments = previews.arguments(action["arguments"], ARGUMENTS_PREVIEW_CHARACTERS)
    blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": f"```{escape(arguments)}```"}})
    if action["status"] == Status.WAITING:
        if action.get("votes"):
            blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": votes_text(action)}]})
        elements = buttons(action, button_value(key, data["callId"]), data["url"])
    else:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": outcome_text(action)}]})
        elements = [link("Open in HistoryHub", OPEN, data["url"])]
    blocks.append({"type": "actions", "elements": elements})
    return blocks


def buttons(action, value, url):
    """The buttons of a waiting action, only for the decisions it allows: Approve (approve or edit allowed) and
    Reject decide here; Respond and Dismiss open the dashboard, as does a last link when no other does."""
    elements = []
    for decision in buttons_for(action["allowedResponses"]):
        if decision in CLICKED:
            label = {"type": "plain_text", "text": decision.label}
            elements.append({"type": "button", **CLICKED[decision], "value": value, "text": label})
        else:
            elements.append(link(decision.label, f"{OPEN}_{decision.value}", url))
    if not any("url" in element for element in elements):
        elements.append(link("Open in HistoryHub", OPEN, url))
    return elements


def link(label, action_id, url):
    return {"type": "button", "action_id": action_id, "text": {"type": "plain_text", "text": label}, "url": url}


def votes_text(action):
    voted = ", ".join(f"{escape(vote['by'])} ({vote['decision']})" for vote in action["votes"])
    needed = action.get("approvalsNeeded") or 0
    more = f"; {needed} more approval{'s' if needed != 1 else ''} needed" if needed else ""
    return f"Votes so far: {voted}{more}"


def outcome_text(action):
    text = f"*{action['status']}*"
    if action.get("resolvedBy"):
        text += f" by {escape(action['resolvedBy'])}"
    if action.get("comment"):
        text += f": {escape(action['comment'])}"
    return text


def send(delivery, channel):
    payload = delivery.payload
    data = payload["data"]
    if payload["type"] == "alert.raised":
        return post_alert(data, channel)
    if payload["type"] == TEST_EVENT:
        text = (
            f"Test event from HistoryHub for the channel {escape(data['channelName'])}, sent by "
            f"{escape(data['sentBy'])}. <{escape(data['url'])}|Channels>"
        )
        return post_text(text, channel)
    key = session_keys.session_key(data["projectId"], data["sessionId"])
    text, blocks = summary(payload), blocks_for(payload, key)
    shown = SlackMessage.objects.filter(channel=channel, session_key=key, call_id=data["callId"]).first()
    web = slack_app.web_client(timeout=settings.WEBHOOK_TIMEOUT_SECONDS)
    try:
        if shown is not None:
            web.chat_update(channel=shown.slack_channel, ts=shown.ts, text=text, blocks=blocks)
        else:
            answer = web.chat_postMessage(channel=channel.slack_channel, text=text, blocks=blocks)
            SlackMessage.objects.get_or_create(
                channel=channel,
                session_key=key,
                call_id=data["callId"],
                defaults={"slack_channel": answer["channel"], "ts": answer["ts"]},
            )
    except SlackApiError as error:
        response = error.response
        retry_after = retry_after_seconds(response.headers.get("Retry-After", response.headers.get("retry-after")))
        return Outcome(False, response.status_code, str(response.get("error", ""))[:500], retry_after)
    except (SlackClientError, OSError) as error:
        return Outcome(False, excerpt=f"{type(error).__name__}: {error}"[:500])
    return Outcome(True, 200)


def post_alert(data, channel):
    """An Insights alert: one message with a link to the page (nothing to update later, nothing to click)."""
    alert = data["alert"]
    about = f" ({escape(alert['action'])})" if alert["action"] else ""
    text = (
        f"Alert: {escape(alert['description'])}{about}: threshold {alert['threshold']:g} crossed at "
        f"{data['value']:.4g}. <{escape(data['url'])}|Open Insights>"
    )
    return post_text(text, channel)


def post_text(text, channel):
    """One message of ``text`` (escaped already) in the channel's Slack channel, and how Slack answered."""
    web = slack_app.web_client(timeout=settings.WEBHOOK_TIMEOUT_SECONDS)
    try:
        web.chat_postMessage(channel=channel.slack_channel, text=text)
    except SlackApiError as error:
        response = error.response
        retry_after = retry_after_seconds(response.headers.get("Retry-After", response.headers.get("retry-after")))
        return Outcome(False, response.status_code, str(response.get("error", ""))[:500], retry_after)
    except (SlackClientError, OSError) as error:
        return Outcome(False, excerpt=f"{type(error).__name__}: {error}"[:500])
    return Outcome(True, 200)

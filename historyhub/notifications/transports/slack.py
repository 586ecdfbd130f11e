"""Slack (docs/notifications.md, "Slack"): a Block Kit message with the action and Approve / Reject buttons,
posted when the action opens and updated in place by every later event, however it was decided.

Spoken through ``slack-sdk``'s WebClient at ``SLACK_API_URL`` (Slack's own unless set: tests point it at a
local stand-in). A click comes back to ``slack_interactions``.
"""

import json

from django.conf import settings
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from historyhub.history import previews
from historyhub.notifications.models import SlackMessage
from historyhub.notifications.transports import Outcome
from historyhub.notifications.transports.webhook import retry_after_seconds
from historyhub.projects import keys

ARGUMENTS_PREVIEW_CHARACTERS = 2500
APPROVE, REJECT = "approve", "reject"


def client(channel):
    return WebClient(
        token=channel.slack_token, base_url=settings.SLACK_API_URL, timeout=settings.WEBHOOK_TIMEOUT_SECONDS
    )


def button_value(channel, key, call_id):
    """What a click sends back: which channel's secret verifies it, and the action it decides."""
    return json.dumps({"channel": channel.pk, "session": key, "callId": call_id}, separators=(",", ":"))


def blocks_for(payload, channel, key):
    data = payload["data"]
    action = data["clientAction"]
    arguments = previews.arguments(action["arguments"], ARGUMENTS_PREVIEW_CHARACTERS)
    blocks = [
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": f"*{escape(data['agent'])}* asks: *{escape(action['name'])}*"},
        },
        {"type": "section", "text": {"type": "mrkdwn", "text": f"```{escape(arguments)}```"}},
    ]
    link = {"type": "button", "text": {"type": "plain_text", "text": "Respond"}, "url": data["url"]}
    if action["status"] == "waiting":
        value = button_value(channel, key, data["callId"])
        buttons = [
            {
                "type": "button",
                "action_id": APPROVE,
                "style": "primary",
                "value": value,
                "text": {"type": "plain_text", "text": "Approve"},
            },
            {
                "type": "button",
                "action_id": REJECT,
                "style": "danger",
                "value": value,
                "text": {"type": "plain_text", "text": "Reject"},
            },
            link,
        ]
        blocks.append({"type": "actions", "elements": buttons})
    else:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": outcome_text(action)}]})
        blocks.append({"type": "actions", "elements": [link]})
    return blocks


def outcome_text(action):
    text = f"*{action['status']}*"
    if action.get("resolvedBy"):
        text += f" by {escape(action['resolvedBy'])}"
    if action.get("comment"):
        text += f": {escape(action['comment'])}"
    return text


def escape(text):
    """Slack's mrkdwn reads &, < and > as markup: what agents and people wrote is shown as written."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def send(delivery, channel):
    payload = delivery.payload
    data = payload["data"]
    key = keys.session_key(data["projectId"], data["sessionId"])
    action = data["clientAction"]
    summary = f"{data['agent']} asks: {action['name']} ({action['status']})"
    blocks = blocks_for(payload, channel, key)
    shown = SlackMessage.objects.filter(channel=channel, session_key=key, call_id=data["callId"]).first()
    web = client(channel)
    try:
        if shown is not None:
            web.chat_update(channel=shown.slack_channel, ts=shown.ts, text=summary, blocks=blocks)
        else:
            answer = web.chat_postMessage(channel=channel.slack_channel, text=summary, blocks=blocks)
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

"""Clicks on a Slack message's buttons, sent to /integrations/slack/interactions as Slack sends them: a
``block_actions`` payload, form-encoded, signed with a signing secret (v0: HMAC-SHA256 of
``v0:{timestamp}:{body}``, keyed with the secret, in hex, after ``v0=``), as ``slack-sdk``'s signer does, empty
secrets too, which that signer refuses to use."""

import hashlib
import hmac
import json
import re
import time
from urllib.parse import urlencode

from django.test import Client

URL = "/integrations/slack/interactions"
TEAM = {"id": "T0ACME", "domain": "acme"}


def buttons(message_request):
    """The buttons of the message a chat.postMessage or chat.update request carries."""
    return next(block for block in message_request["body"]["blocks"] if block["type"] == "actions")["elements"]


def payload(message_request, action_id, slack_user="U1", user_name="ana.slack", response_url=None, team=TEAM):
    """What Slack POSTs when ``slack_user`` clicks the button ``action_id`` of that message."""
    button = next(element for element in buttons(message_request) if element.get("action_id") == action_id)
    action = {"action_id": action_id, "block_id": "b1", "type": "button", "action_ts": "1700000002.000200"}
    if "value" in button:
        action["value"] = button["value"]
    channel = message_request["body"]["channel"]
    return {
        "type": "block_actions",
        "user": {"id": slack_user, "username": user_name, "name": user_name, "team_id": team["id"]},
        "api_app_id": "A0HISTORYHUB",
        "token": "verification-token-of-old",
        "container": {"type": "message", "message_ts": "1700000000.000100", "channel_id": channel},
        "trigger_id": "1.2.3",
        "team": team,
        "channel": {"id": channel, "name": "approvals"},
        "response_url": response_url or "https://hooks.slack.com/actions/T0ACME/1/x",
        "actions": [action],
    }


def send(body_payload, secret, timestamp=None):
    """POST the payload as Slack does, signed with ``secret`` at ``timestamp`` (now unless given)."""
    body = urlencode({"payload": json.dumps(body_payload)})
    timestamp = str(int(timestamp if timestamp is not None else time.time()))
    signed = hmac.new(secret.encode(), f"v0:{timestamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return Client().post(
        URL,
        body,
        content_type="application/x-www-form-urlencoded",
        headers={"X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": f"v0={signed}"},
    )


def ephemerals(slack):
    """What the stand-in was asked to show one person alone: (channel, user, text) of each chat.postEphemeral."""
    return [
        (request["body"]["channel"], request["body"]["user"], request["body"]["text"])
        for request in slack.called("chat.postEphemeral")
    ]


def link_in(text):
    """The address of the link a Slack mrkdwn text carries as ``<url|label>``."""
    return re.search(r"<(https?://[^|>]+)\|", text).group(1)

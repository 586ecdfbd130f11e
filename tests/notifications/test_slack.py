"""Slack, against a local stand-in for its Web API (a real HTTP server on localhost): the message with
Approve / Reject buttons, a signed click deciding as the linked person, or else as the member whose email Slack
confirms, under the decider rule; forged and stale signatures refused, unlinked people told so, and the message
updated however the action was decided."""

import json
import time
from urllib.parse import urlencode

import pytest
from django.test import Client
from slack_sdk.signature import SignatureVerifier

from historyhub.data.models import AuditEntry
from historyhub.history import client_actions
from historyhub.notifications.models import SlackMessage, SlackUserLink
from historyhub.notifications.slack_interactions import NOT_LINKED
from historyhub.notifications.transports.slack import ARGUMENTS_PREVIEW_CHARACTERS
from tests.notifications.conftest import deliver_due
from tests.support.actors import as_approver, make_member
from tests.support.slack_web_api import SlackWebApi

pytestmark = pytest.mark.django_db
SIGNING_SECRET = "slack-signing-secret"
BOT_TOKEN = "xoxb-test-token"


@pytest.fixture
def slack(settings):
    with SlackWebApi(BOT_TOKEN) as stand_in:
        settings.SLACK_API_URL = stand_in.url + "/"
        yield stand_in


@pytest.fixture
def slack_channel(admin_api, slack):
    answer = admin_api.post(
        "channels",
        {
            "kind": "slack",
            "name": "approvals",
            "events": ["client_action.opened", "client_action.decided"],
            "slackChannel": "C42",
            "slackToken": BOT_TOKEN,
            "slackSigningSecret": SIGNING_SECRET,
        },
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


@pytest.fixture
def waiting(api, session_id, slack_channel, slack):
    opened = api.post(
        f"sessions/{session_id}/client-actions",
        {"callId": "c1", "name": "issue_refund", "arguments": {"amount": 42}},
    )
    assert opened.status_code == 201
    deliver_due()
    return slack.requests[0]


def buttons(request):
    return next(block for block in request["body"]["blocks"] if block["type"] == "actions")["elements"]


def click(slack, message, action_id, slack_user="U1", secret=SIGNING_SECRET, timestamp=None):
    button = next(element for element in buttons(message) if element.get("action_id") == action_id)
    payload = {
        "type": "block_actions",
        "user": {"id": slack_user},
        "response_url": slack.url + "/response",
        "actions": [{"action_id": action_id, "value": button["value"]}],
    }
    body = urlencode({"payload": json.dumps(payload)})
    timestamp = str(int(timestamp if timestamp is not None else time.time()))
    signature = SignatureVerifier(secret).generate_signature(timestamp=timestamp, body=body)
    return Client().post(
        "/integrations/slack/interactions",
        body,
        content_type="application/x-www-form-urlencoded",
        headers={"X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": signature},
    )


def told(slack):
    return [request["body"]["text"] for request in slack.requests if request["path"] == "/response"]


def slack_user(email, confirmed=True):
    """A user object as Slack's users.info answers it."""
    return {"id": "U7", "name": "someone", "is_email_confirmed": confirmed, "profile": {"email": email}}


def with_email(user, email):
    user.email = email
    user.save(update_fields=["email"])
    return user


def test_an_opened_action_is_posted_with_approve_reject_and_a_link(waiting, session_id):
    assert waiting["path"] == "/chat.postMessage"
    assert waiting["headers"]["Authorization"] == "Bearer xoxb-test-token"
    assert waiting["body"]["channel"] == "C42"
    assert "issue_refund" in waiting["body"]["text"]
    labels = [(element["text"]["text"], element.get("style")) for element in buttons(waiting)]
    assert labels == [("Approve", "primary"), ("Reject", "danger"), ("Respond", None)]
    assert buttons(waiting)[2]["url"] == f"https://historyhub.example.com/p/default/sessions/{session_id}/"
    assert '"amount": 42' in json.dumps(waiting["body"]["blocks"]).replace("\\n", "\n").replace('\\"', '"')
    assert SlackMessage.objects.get().ts == "1700000000.000100"


def test_a_signed_click_approves_as_the_linked_person_and_the_message_is_updated(waiting, slack, session_id):
    SlackUserLink.objects.create(user=make_member("ana", "approver"), slack_user_id="U1")
    answer = click(slack, waiting, "approve")
    assert answer.status_code == 200
    action = client_actions.get(session_id, "c1")
    assert (action.status, action.resolved_by) == ("approved", "slack: ana")
    assert told(slack) == ["You approved issue_refund."]
    deliver_due()
    update = next(request for request in slack.requests if request["path"] == "/chat.update")
    assert update["body"]["ts"] == "1700000000.000100" and update["body"]["channel"] == "C42"
    assert all(element.get("action_id") is None for element in buttons(update))
    assert "approved" in json.dumps(update["body"]["blocks"]) and "slack: ana" in json.dumps(update["body"]["blocks"])


def test_a_forged_or_stale_signature_is_refused_and_decides_nothing(waiting, slack, session_id):
    SlackUserLink.objects.create(user=make_member("ana", "approver"), slack_user_id="U1")
    assert click(slack, waiting, "approve", secret="not-the-secret").status_code == 401
    assert click(slack, waiting, "approve", timestamp=time.time() - 600).status_code == 401
    assert client_actions.get(session_id, "c1").status == "waiting"
    assert told(slack) == []


def test_an_unlinked_slack_user_is_told_so_and_nothing_is_decided(waiting, slack, session_id):
    assert click(slack, waiting, "reject", slack_user="U-stranger").status_code == 200
    assert client_actions.get(session_id, "c1").status == "waiting"
    assert told(slack) == [
        "Your Slack user is not linked to a HistoryHub person, so nothing was decided. "
        "Link it on your notifications page in HistoryHub."
    ]
    assert [request["arguments"] for request in slack.called("users.info")] == [{"user": "U-stranger"}]


def test_an_unlinked_slack_user_whose_confirmed_email_is_a_members_acts_as_that_member(waiting, slack, session_id):
    with_email(make_member("ana", "approver"), "Ana.Lopez@Example.com")
    slack.users["U7"] = slack_user("ana.lopez@example.COM")

    assert click(slack, waiting, "approve", slack_user="U7").status_code == 200

    action = client_actions.get(session_id, "c1")
    assert (action.status, action.resolved_by) == ("approved", "slack: ana")
    assert told(slack) == ["You approved issue_refund."]
    [asked] = slack.called("users.info")
    assert asked["headers"]["Authorization"] == f"Bearer {BOT_TOKEN}" and asked["arguments"] == {"user": "U7"}
    assert AuditEntry.objects.get(action="decision").actor == "slack: ana"
    assert SlackUserLink.objects.get(slack_user_id="U7").user.username == "ana"


def test_the_member_found_by_email_is_remembered_so_a_later_click_does_not_ask_slack(waiting, slack, session_id):
    with_email(make_member("ana", "approver"), "ana@example.com")
    slack.users["U7"] = slack_user("ana@example.com")
    click(slack, waiting, "approve", slack_user="U7")
    del slack.users["U7"]

    click(slack, waiting, "approve", slack_user="U7")

    assert told(slack) == ["You approved issue_refund.", "It was already approved."]
    assert len(slack.called("users.info")) == 1


def test_a_link_made_on_the_profile_page_wins_over_the_email(waiting, slack, session_id):
    SlackUserLink.objects.create(user=make_member("vi", "viewer"), slack_user_id="U7")
    with_email(make_member("ana", "approver"), "ana@example.com")
    slack.users["U7"] = slack_user("ana@example.com")

    click(slack, waiting, "approve", slack_user="U7")

    assert client_actions.get(session_id, "c1").status == "waiting"
    assert told(slack)[0].startswith("Nothing was decided: Deciding client actions needs the approver or admin role")
    assert slack.called("users.info") == []


@pytest.mark.parametrize(
    "case",
    [
        "the email is not confirmed",
        "the email is a member's of another project only",
        "two people have the email",
        "the member with the email is deactivated",
        "Slack does not know the user",
        "Slack reports no email",
    ],
)
def test_an_email_that_does_not_name_exactly_one_member_links_nobody(waiting, slack, session_id, case):
    ana = with_email(make_member("ana", "approver"), "ana@example.com")
    slack.users["U7"] = slack_user("ana@example.com")
    if case == "the email is not confirmed":
        slack.users["U7"] = slack_user("ana@example.com", confirmed=False)
    elif case == "the email is a member's of another project only":
        with_email(ana, "")
        with_email(make_member("zed", "admin", project="staging"), "ana@example.com")
    elif case == "two people have the email":
        with_email(make_member("ana2", "approver"), "ANA@example.com")
    elif case == "the member with the email is deactivated":
        ana.is_active = False
        ana.save(update_fields=["is_active"])
    elif case == "Slack does not know the user":
        del slack.users["U7"]
    else:
        slack.users["U7"] = {"id": "U7", "is_email_confirmed": True, "profile": {}}

    assert click(slack, waiting, "approve", slack_user="U7").status_code == 200

    assert client_actions.get(session_id, "c1").status == "waiting"
    assert told(slack) == [NOT_LINKED]
    assert len(slack.called("users.info")) == 1
    assert not SlackUserLink.objects.exists()


def test_a_linked_person_who_may_not_decide_is_told_why(waiting, slack, session_id):
    SlackUserLink.objects.create(user=make_member("vi", "viewer"), slack_user_id="U1")
    click(slack, waiting, "approve")
    assert client_actions.get(session_id, "c1").status == "waiting"
    [text] = told(slack)
    assert text.startswith("Nothing was decided: Deciding client actions needs the approver or admin role")


def test_the_message_is_updated_after_a_decision_on_the_dashboard(waiting, slack, session_id):
    client_actions.decide(session_id, "c1", decision="reject", comment="too much", decider=as_approver())
    deliver_due()
    update = next(request for request in slack.requests if request["path"] == "/chat.update")
    assert "rejected" in json.dumps(update["body"]["blocks"])
    assert "too much" in json.dumps(update["body"]["blocks"])


def test_long_arguments_are_cut_to_the_preview_and_end_in_an_ellipsis(api, session_id, slack_channel, slack):
    arguments = {"rows": ["x" * 100] * 100}
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c2", "name": "send_report", "arguments": arguments})
    deliver_due()
    shown = slack.requests[0]["body"]["blocks"][1]["text"]["text"]
    pretty = json.dumps(arguments, indent=2)
    assert shown == f"```{pretty[: ARGUMENTS_PREVIEW_CHARACTERS - 1]}…```"

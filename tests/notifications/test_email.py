"""Email: to the people who may decide, each by their own preference, through a real SMTP server on localhost
(aiosmtpd); plain text and HTML naming the agent, the action, its arguments and a link that decides nothing."""

import email
import json
from email import policy

import pytest
from aiosmtpd.controller import Controller
from django.contrib.auth.models import User

from bench.server import free_port
from historyhub.history.models import ClientAction
from historyhub.notifications.models import Delivery, EmailPreference, NotificationSettings
from historyhub.notifications.transports.email import ARGUMENTS_PREVIEW_CHARACTERS, SUBJECT_CHARACTERS
from tests.notifications.conftest import deliver_due
from tests.support.actors import make_member
from tests.support.html import parse
from tests.support.readers import items_via_api

pytestmark = pytest.mark.django_db


class Inbox:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=policy.default)
        self.messages.append((envelope.rcpt_tos, message))
        return "250 OK"


@pytest.fixture
def inbox(settings):
    handler = Inbox()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    yield handler
    controller.stop()


@pytest.fixture
def mail_channel(admin_api):
    events = ["client_action.opened", "client_action.decided"]
    answer = admin_api.post("channels", {"kind": "email", "name": "mail", "events": events})
    assert answer.status_code == 201, answer.content
    return answer.json()


def person(username, role, preference=None):
    user = make_member(username, role)
    user.email = f"{username}@example.com"
    user.save()
    if preference is not None:
        NotificationSettings.objects.create(user=user, email=preference)
    return user


def test_the_people_who_may_decide_get_mail_by_their_preference(api, session_id, mail_channel, inbox):
    person("ana", "approver")
    person("bo", "admin", EmailPreference.EVERY_EVENT)
    person("cy", "approver", EmailPreference.NONE)
    person("di", "viewer")
    opened = api.post(
        f"sessions/{session_id}/client-actions",
        {"callId": "c1", "name": "issue_refund", "arguments": {"amount": 42, "note": "<b>now</b>"}},
    )
    assert opened.status_code == 201
    deliver_due()
    assert sorted(to for tos, _ in inbox.messages for to in tos) == ["ana@example.com", "bo@example.com"]
    _, message = inbox.messages[0]
    assert message["Subject"] == "[HistoryHub] support: issue_refund waits for a decision"
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    url = f"https://historyhub.example.com/p/default/sessions/{session_id}/"
    assert '"amount": 42' in text and session_id in text and url in text
    assert "&lt;b&gt;now&lt;/b&gt;" in html and "<b>now</b>" not in html
    # The only link opens the dashboard, where deciding needs a login and a press of a button.
    assert [link["href"] for link in parse(html).all("a")] == [url]


def test_a_decision_is_mailed_with_its_outcome(api, decide_api, session_id, mail_channel, inbox):
    person("ana", "approver")
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "issue_refund", "arguments": {}})
    decide_api.post(f"sessions/{session_id}/client-actions/c1/decision", {"decision": "reject", "comment": "no"})
    deliver_due()
    subjects = sorted(message["Subject"] for _, message in inbox.messages)
    assert subjects == [
        "[HistoryHub] support: issue_refund waits for a decision",
        "[HistoryHub] support: issue_refund was decided",
    ]
    decided = next(m for _, m in inbox.messages if m["Subject"].endswith("was decided"))
    assert "Decision: reject by api key: tests (decide): no" in decided.get_body(("plain",)).get_content()


def test_nobody_to_mail_is_not_a_failure(api, session_id, mail_channel, inbox, admin_api):
    person("cy", "approver", EmailPreference.NONE)
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "x", "arguments": {}})
    deliver_due()
    assert inbox.messages == []
    [delivery] = admin_api.get(f"channels/{mail_channel['channelId']}/deliveries").json()["items"]
    assert delivery["status"] == "delivered"


def test_a_person_who_prefers_a_digest_gets_one_mail_gathering_the_events(
    api, session_id, mail_channel, inbox, settings
):
    person("ana", "approver", EmailPreference.HOURLY_DIGEST)
    for call_id in ("c1", "c2"):
        api.post(f"sessions/{session_id}/client-actions", {"callId": call_id, "name": "issue_refund", "arguments": {}})
    deliver_due()
    assert inbox.messages == []  # an hour has not passed
    settings.EMAIL_DIGEST_SECONDS = 0
    deliver_due()
    [(to, message)] = inbox.messages
    assert to == ["ana@example.com"]
    assert message["Subject"] == "[HistoryHub] 2 events about actions you may decide"
    assert message.get_body(("plain",)).get_content().count("issue_refund (client_action.opened") == 2
    deliver_due()
    assert len(inbox.messages) == 1


def test_long_arguments_are_cut_to_the_preview_and_end_in_an_ellipsis(api, session_id, mail_channel, inbox):
    person("ana", "approver")
    arguments = {"rows": ["x" * 100] * 100}
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "send_report", "arguments": arguments})
    deliver_due()
    [(_, message)] = inbox.messages
    pretty = json.dumps(arguments, indent=2)
    text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert f"Arguments:\n{pretty[: ARGUMENTS_PREVIEW_CHARACTERS - 1]}…\n" in text
    assert pretty[:ARGUMENTS_PREVIEW_CHARACTERS] not in text


def subject_of(message):
    """The subject as a mail client shows it (a non-ASCII one is encoded on a folded line, read back with the
    fold's leading space)."""
    return message["Subject"].strip()


CONTROLLED_NAMES = ["pay\nvendor", "pay\r\nBcc: everyone@example.com", "\tpay\x00\x1b[31m", "pay\x85\u2028vendor"]


@pytest.mark.parametrize("name", CONTROLLED_NAMES)
@pytest.mark.parametrize("dialect", ["mcp", "orcha"])
def test_an_action_an_item_opens_with_a_control_character_in_its_name_is_mailed(
    api, session_id, mail_channel, inbox, admin_api, name, dialect
):
    """The API refuses such a name; an item is kept verbatim, so its action's name has the control characters
    replaced, and the mail's subject is one line whatever the name."""
    person("ana", "approver")
    if dialect == "mcp":
        item = {"type": "mcp_approval_request", "id": "mcpr_1", "name": name, "arguments": "{}"}
    else:
        item = {"type": "client_action", "callId": "mcpr_1", "name": name, "status": "waiting", "arguments": {}}
    if "\x00" in name:
        name = name.replace("\x00", "")  # a stored item holds no NUL (docs/api.md, "Conventions")
        item["name"] = name
    assert api.post(f"sessions/{session_id}/items", {"items": [item]}).status_code == 200
    [stored] = items_via_api(api, session_id)
    assert stored["name"] == name
    [action] = api.get("client-actions").json()["items"]
    assert "\ufffd" in action["name"] and "\n" not in action["name"] and "\r" not in action["name"]
    deliver_due()
    [(to, message)] = inbox.messages
    assert to == ["ana@example.com"]
    shown = " ".join(action["name"].split())  # white space (the replacement character is none) runs to one space
    assert subject_of(message) == f"[HistoryHub] support: {shown} waits for a decision"
    assert "\n" not in message["Subject"] and message["Bcc"] is None
    [delivery] = admin_api.get(f"channels/{mail_channel['channelId']}/deliveries").json()["items"]
    assert delivery["status"] == "delivered"


@pytest.mark.parametrize(
    "name, subject_name",
    [
        ("issue_refund", "issue_refund"),
        ("überweisung prüfen", "überweisung prüfen"),
        ("pay 💸 now", "pay 💸 now"),
        ('"quoted" <b>name</b>; x=1', '"quoted" <b>name</b>; x=1'),
        ("\u202eevil", "\u202eevil"),
        ("a  b", "a b"),
        ("n" * 200, "n" * 200),
    ],
)
def test_mail_goes_out_for_every_name_the_api_accepts(api, session_id, mail_channel, inbox, name, subject_name):
    person("ana", "approver")
    opened = api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": name, "arguments": {}})
    assert opened.status_code == 201, opened.content
    deliver_due()
    [(_, message)] = inbox.messages
    subject = f"[HistoryHub] support: {subject_name} waits for a decision"
    if len(subject) > SUBJECT_CHARACTERS:
        subject = subject[: SUBJECT_CHARACTERS - 1] + "…"
    assert subject_of(message) == subject
    assert len(subject_of(message)) <= SUBJECT_CHARACTERS


def test_a_name_stored_before_names_were_checked_is_still_mailed(api, session_id, mail_channel, inbox):
    """An event naming an action and an agent with line breaks (written before the rule): the subject is made one
    line, never refused by the mail library, and a person whose address would break a header is left out."""
    person("ana", "approver")
    person("bad", "approver")
    User.objects.filter(username="bad").update(email="bad@example.com\nBcc: x@example.com")
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "pay_vendor", "arguments": {}})
    ClientAction.objects.filter(call_id="c1").update(name="pay\nvendor")
    delivery = Delivery.objects.get()
    payload = json.loads(delivery.body)
    payload["data"]["agent"] = "sup\r\nport"
    payload["data"]["clientAction"]["name"] = "pay\nvendor"
    Delivery.objects.filter(pk=delivery.pk).update(body=json.dumps(payload))
    deliver_due()
    [(to, message)] = inbox.messages
    assert to == ["ana@example.com"]
    assert subject_of(message) == "[HistoryHub] sup port: pay vendor waits for a decision"
    assert message["Bcc"] is None


def test_a_refused_execution_is_mailed_as_such_without_asking_for_a_decision(
    api, decide_api, session_id, admin_api, inbox
):
    person("ana", "approver")
    channel = admin_api.post(
        "channels", {"kind": "email", "name": "mail", "events": ["client_action.execution_refused"]}
    )
    assert channel.status_code == 201, channel.content
    action = f"sessions/{session_id}/client-actions/c1"
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "issue_refund", "arguments": {"a": 1}})
    decide_api.post(f"{action}/decision", {"decision": "approve"})
    other = "sha256:" + "0" * 64
    assert api.post(f"{action}/execution", {"argumentsDigest": other}).status_code == 409

    deliver_due()

    [(tos, message)] = inbox.messages
    assert tos == ["ana@example.com"]
    expected = "[HistoryHub] support: issue_refund was refused execution with other arguments than the approved ones"
    assert message["Subject"] == expected
    text = message.get_body(("plain",)).get_content()
    assert "claimed with other arguments than the approved ones, and refused: nothing ran." in text
    assert "to decide" not in text

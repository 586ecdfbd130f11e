"""Slack, against a local stand-in for its Web API (a real HTTP server on localhost): the message with the
buttons the action allows, everything in it escaped; a click signed as Slack signs it, with the installation's
signing secret only, deciding as the linked person under the decider rule; whatever the clicker is told goes to
them alone through chat.postEphemeral, never to the click's response_url; the message updated however the
action was decided."""

import json
import time
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import deciding
from historyhub.audit.models import AuditEntry
from historyhub.history import client_actions
from historyhub.notifications.models import SlackLinkRequest, SlackMessage
from historyhub.notifications.transports.slack import ARGUMENTS_PREVIEW_CHARACTERS
from historyhub.projects import administration
from historyhub.projects.models import Group, Project, Role
from tests.notifications.conftest import SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, deliver_due
from tests.support.actors import ApiClient, as_approver, logged_in, make_member, post
from tests.support.slack_clicks import buttons, ephemerals, link_in, payload, send
from tests.support.tiny_server import TinyServer

pytestmark = pytest.mark.django_db
HOSTILE_AGENT = "<!channel> bot"
HOSTILE_NAME = "<https://evil.example|Approve here>"


def open_action(api, session_id, call_id="c1", name="issue_refund", **fields):
    body = {"callId": call_id, "name": name, "arguments": {"amount": 42}, **fields}
    answer = api.post(f"sessions/{session_id}/client-actions", body)
    assert answer.status_code == 201, answer.content
    deliver_due()


@pytest.fixture
def message(api, session_id, slack_channel, slack):
    """The Slack message of a waiting issue_refund (c1) in the default project."""
    open_action(api, session_id)
    [posted] = slack.called("chat.postMessage")
    return posted


def link(slack, message, person, slack_user="U1"):
    """Link ``slack_user`` to ``person`` as people do: a click, the link Slack shows them, Confirm."""
    assert send(payload(message, "approve", slack_user), SLACK_SIGNING_SECRET).status_code == 200
    url = link_in(ephemerals(slack)[-1][2])
    client = logged_in(person)
    path = url.removeprefix("https://historyhub.example.com")
    assert post(client, path, {}).status_code == 302
    assert len(person.slack_links.all()) == 1


def labels(message_request):
    return [(element["text"]["text"], element.get("style"), "url" in element) for element in buttons(message_request)]


def test_an_opened_action_is_posted_with_the_installations_app_and_its_buttons(message, session_id):
    assert message["path"] == "/chat.postMessage"
    assert message["headers"]["Authorization"] == f"Bearer {SLACK_BOT_TOKEN}"
    assert message["body"]["channel"] == "C42"
    assert message["body"]["text"] == "support asks: issue_refund (waiting)"
    assert labels(message) == [
        ("Approve", "primary", False),
        ("Reject", "danger", False),
        ("Open in HistoryHub", None, True),
    ]
    assert buttons(message)[2]["url"] == f"https://historyhub.example.com/p/default/sessions/{session_id}/"
    # The button names the action only: its session's key says the project.
    assert json.loads(buttons(message)[0]["value"]) == {"session": session_id, "callId": "c1"}
    assert '"amount": 42' in json.dumps(message["body"]["blocks"]).replace("\\n", "\n").replace('\\"', '"')
    assert SlackMessage.objects.get().ts == "1700000000.000100"


@pytest.mark.parametrize(
    ("allowed", "shown"),
    [
        (["respond"], [("Respond", None, True)]),
        (["dismiss"], [("Dismiss", None, True)]),
        (["respond", "dismiss"], [("Respond", None, True), ("Dismiss", None, True)]),
        (["reject", "respond"], [("Reject", "danger", False), ("Respond", None, True)]),
        (["edit"], [("Approve", "primary", False), ("Open in HistoryHub", None, True)]),
        (["approve"], [("Approve", "primary", False), ("Open in HistoryHub", None, True)]),
    ],
)
def test_only_the_decisions_the_action_allows_get_buttons(api, session_id, slack_channel, slack, allowed, shown):
    open_action(api, session_id, allowedResponses=allowed)
    [message] = slack.called("chat.postMessage")
    assert labels(message) == shown


def test_a_click_on_approve_of_an_action_allowing_only_respond_decides_nothing(api, session_id, slack_channel, slack):
    open_action(api, session_id)
    [with_approve] = slack.called("chat.postMessage")
    link(slack, with_approve, make_member("ana", Role.APPROVER))
    open_action(api, session_id, call_id="c2", allowedResponses=["respond"])
    forged_onto = json.loads(json.dumps(with_approve))
    forged_onto["body"]["blocks"][-1]["elements"][0]["value"] = json.dumps({"session": session_id, "callId": "c2"})

    assert send(payload(forged_onto, "approve"), SLACK_SIGNING_SECRET).status_code == 200

    assert client_actions.get(session_id, "c2").status == "waiting"
    assert ephemerals(slack)[-1][2] == 'Nothing was decided: This action does not allow the response "approve".'


def test_hostile_names_arrive_escaped_in_the_blocks_and_the_fallback_text(api, slack_channel, slack):
    assert api.post("sessions", {"sessionId": "s-hostile", "agent": HOSTILE_AGENT}).status_code == 201
    open_action(
        api,
        "s-hostile",
        name=HOSTILE_NAME,
        description="Pay <@U0BOSS> & <!here>",
        arguments={"note": "<!everyone>"},
    )
    deciding.decide("s-hostile", "c1", decision="reject", comment="<!channel> no", decider=as_approver())
    deliver_due()

    posted, updated = slack.called("chat.postMessage") + slack.called("chat.update")
    for request in (posted, updated):
        shown = json.dumps([request["body"]["text"], request["body"]["blocks"]])
        for raw in ("<!channel>", "<https://evil", "<@U0BOSS>", "<!here>", "<!everyone>", "& <"):
            assert raw not in shown
    assert posted["body"]["text"] == ("&lt;!channel&gt; bot asks: &lt;https://evil.example|Approve here&gt; (waiting)")
    texts = json.dumps(posted["body"]["blocks"])
    assert "&lt;https://evil.example|Approve here&gt;" in texts and "Pay &lt;@U0BOSS&gt; &amp; &lt;!here&gt;" in texts
    assert "&lt;!everyone&gt;" in texts
    assert updated["body"]["text"].endswith("(rejected)")
    assert "*rejected* by owner: &lt;!channel&gt; no" in json.dumps(updated["body"]["blocks"])


def test_a_linked_persons_click_decides_as_them_via_slack_and_the_message_is_updated(message, slack, session_id):
    link(slack, message, make_member("ana", Role.APPROVER))

    assert send(payload(message, "approve"), SLACK_SIGNING_SECRET).status_code == 200

    action = client_actions.get(session_id, "c1")
    assert (action.status, action.resolved_by) == ("approved", "ana")
    assert [(vote.by, vote.user.username) for vote in action.votes.all()] == [("ana", "ana")]
    assert AuditEntry.objects.get(action="decision").actor == "ana"
    assert ephemerals(slack)[-1] == ("C42", "U1", "You approved issue_refund.")
    deliver_due()
    [update] = slack.called("chat.update")
    assert update["body"]["ts"] == "1700000000.000100" and update["body"]["channel"] == "C42"
    assert [element.get("action_id") for element in buttons(update)] == ["open"]
    assert "*approved* by ana" in json.dumps(update["body"]["blocks"])


@pytest.mark.parametrize(
    "secret",
    ["a-project-admins-own-secret", SLACK_SIGNING_SECRET + "x", ""],
)
def test_a_click_signed_with_any_secret_but_the_installations_is_refused(message, slack, session_id, secret):
    link(slack, message, make_member("ana", Role.APPROVER))
    told = len(ephemerals(slack))

    answer = send(payload(message, "approve"), secret)

    assert answer.status_code == 401
    assert client_actions.get(session_id, "c1").status == "waiting"
    assert len(ephemerals(slack)) == told
    assert not AuditEntry.objects.filter(action__in=["decision", "vote"]).exists()


def test_a_click_older_than_five_minutes_is_refused_and_one_just_younger_is_not(message, slack, session_id):
    link(slack, message, make_member("ana", Role.APPROVER))

    assert send(payload(message, "approve"), SLACK_SIGNING_SECRET, timestamp=time.time() - 302).status_code == 401
    assert client_actions.get(session_id, "c1").status == "waiting"
    assert send(payload(message, "approve"), SLACK_SIGNING_SECRET, timestamp=time.time() - 298).status_code == 200
    assert client_actions.get(session_id, "c1").status == "approved"


def test_an_installation_without_a_signing_secret_verifies_nothing(message, slack, session_id, settings):
    settings.SLACK_SIGNING_SECRET = ""
    assert send(payload(message, "approve", slack_user="U9"), "").status_code == 401
    assert not SlackLinkRequest.objects.exists()
    assert ephemerals(slack) == []


def test_an_unsigned_click_is_refused(message, slack):
    body = urlencode({"payload": json.dumps(payload(message, "approve"))})
    answer = Client().post("/integrations/slack/interactions", body, content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 401
    assert ephemerals(slack) == []


def test_the_clicks_response_url_is_never_requested(message, slack, session_id):
    link(slack, message, make_member("ana", Role.APPROVER))
    with TinyServer([]) as receiver:
        on_loopback = receiver.url + "/steal"
        clicks = [
            payload(message, "reject", slack_user="U-stranger", response_url=on_loopback),
            payload(message, "open", response_url=on_loopback),
            payload(message, "approve", response_url=on_loopback),
            payload(message, "reject", response_url=on_loopback),
        ]
        for click in clicks:
            assert send(click, SLACK_SIGNING_SECRET).status_code == 200
        assert receiver.requests == [] and receiver.connections == 0
    # Each deciding click was answered, to the clicker alone, through SLACK_API_URL.
    assert [text.split(" ")[0] for _, _, text in ephemerals(slack)[1:]] == ["Your", "You", "Nothing"]


def test_a_link_buttons_click_is_acknowledged_and_decides_nothing(message, slack, session_id):
    link(slack, message, make_member("ana", Role.APPROVER))
    told = len(ephemerals(slack))
    assert send(payload(message, "open"), SLACK_SIGNING_SECRET).status_code == 200
    assert client_actions.get(session_id, "c1").status == "waiting"
    assert len(ephemerals(slack)) == told


def test_a_linked_person_the_policy_refuses_is_told_why_and_nothing_is_decided(
    admin_api, api, message, slack, session_id
):
    ana = make_member("ana", Role.APPROVER)
    Group.objects.create(project_id="default", name="finance").members.set([make_member("fin", Role.APPROVER)])
    policy = {"name": "refunds", "actions": ["issue_*"], "approverGroups": ["finance"], "requiredApprovals": 1}
    assert admin_api.put("policies", {"items": [policy]}).status_code == 200
    open_action(api, session_id, call_id="c2")
    [_, governed] = slack.called("chat.postMessage")
    link(slack, message, ana)

    send(payload(governed, "approve"), SLACK_SIGNING_SECRET)

    assert client_actions.get(session_id, "c2").status == "waiting"
    assert ephemerals(slack)[-1] == (
        "C42",
        "U1",
        'Nothing was decided: The policy "refunds" lets only members of finance decide this action.',
    )
    assert not AuditEntry.objects.filter(action__in=["decision", "vote"]).exists()


def test_a_person_voting_on_the_dashboard_then_in_slack_counts_once(admin_api, api, slack_channel, slack, session_id):
    """Needs votes counted by identity (another branch): the same person through two channels is one decider."""
    alice, bob = make_member("alice", Role.APPROVER), make_member("bob", Role.APPROVER)
    two = {"name": "two people", "actions": ["pay_*"], "requiredApprovals": 2}
    assert admin_api.put("policies", {"items": [two]}).status_code == 200
    open_action(api, session_id, call_id="p1", name="pay_vendor")
    [message] = slack.called("chat.postMessage")
    link(slack, message, alice)
    url = reverse("dashboard:decide_action", args=["default", session_id, "p1"])
    assert post(logged_in(alice), url, {"decision": "approve"}).status_code == 302

    answer = send(payload(message, "approve"), SLACK_SIGNING_SECRET)

    assert answer.status_code == 200
    action = api.get(f"sessions/{session_id}/client-actions/p1").json()
    assert (action["status"], action["approvalsNeeded"], len(action["votes"])) == ("waiting", 1, 1)
    assert ephemerals(slack)[-1][2] in (
        "Your approval of pay_vendor was already counted; it waits for more approvals.",
        "Nothing was decided: You have already decided on this action.",
    )
    post(logged_in(bob), url, {"decision": "approve"})
    assert client_actions.get(session_id, "p1").status == "approved"


def test_a_click_decides_in_the_actions_own_project_by_the_persons_role_there(slack, settings):
    administration.create_project("staging", "Staging")
    staging_admin = ApiClient(ApiKey.issue("staging admin", "admin", project="staging")[1])
    staging = ApiClient(ApiKey.issue("staging agent", "write", project="staging")[1])
    body = {"kind": "slack", "name": "staging", "events": ["client_action.opened"], "slackChannel": "C77"}
    assert staging_admin.post("channels", body).status_code == 201
    assert staging.post("sessions", {"sessionId": "s1", "agent": "support"}).status_code == 201
    open_action(staging, "s1", call_id="c9")
    [message] = slack.called("chat.postMessage")
    assert json.loads(buttons(message)[0]["value"]) == {"session": "staging/s1", "callId": "c9"}
    ana = make_member("ana", Role.APPROVER)
    link(slack, message, ana, slack_user="U5")

    send(payload(message, "approve", slack_user="U5"), SLACK_SIGNING_SECRET)
    assert client_actions.get("staging/s1", "c9").status == "waiting"
    assert ephemerals(slack)[-1][2].startswith("Nothing was decided: ")

    administration.set_member(Project.objects.get(pk="staging"), "ana", Role.APPROVER, actor="tests")
    send(payload(message, "approve", slack_user="U5"), SLACK_SIGNING_SECRET)
    assert (client_actions.get("staging/s1", "c9").status, ephemerals(slack)[-1][1]) == ("approved", "U5")


def test_the_message_is_updated_after_a_decision_on_the_dashboard(message, slack, session_id):
    deciding.decide(session_id, "c1", decision="reject", comment="too much", decider=as_approver())
    deliver_due()
    [update] = slack.called("chat.update")
    assert "*rejected* by owner: too much" in json.dumps(update["body"]["blocks"])


def test_long_arguments_are_cut_to_the_preview_and_end_in_an_ellipsis(api, session_id, slack_channel, slack):
    arguments = {"rows": ["x" * 100] * 100}
    open_action(api, session_id, call_id="c2", name="send_report", arguments=arguments)
    shown = slack.called("chat.postMessage")[0]["body"]["blocks"][1]["text"]["text"]
    pretty = json.dumps(arguments, indent=2)
    assert shown == f"```{pretty[: ARGUMENTS_PREVIEW_CHARACTERS - 1]}…```"


@pytest.mark.parametrize(
    "change",
    [
        lambda click: click.update(type="view_submission"),
        lambda click: click["actions"][0].pop("value"),
        lambda click: click["actions"][0].update(value="not json"),
        lambda click: click["user"].update(id=["U1"]),
        lambda click: click.update(team={"id": "T" * 41, "domain": "acme"}),
        lambda click: click.update(actions=[]),
    ],
)
def test_a_signed_click_that_is_not_one_on_our_buttons_is_a_400_and_decides_nothing(message, slack, session_id, change):
    link(slack, message, make_member("ana", Role.APPROVER))
    told = len(ephemerals(slack))
    click = payload(message, "approve")
    change(click)

    assert send(click, SLACK_SIGNING_SECRET).status_code == 400

    assert client_actions.get(session_id, "c1").status == "waiting"
    assert len(ephemerals(slack)) == told


def test_a_counted_vote_updates_the_message_with_who_voted_and_keeps_the_buttons(
    admin_api, api, slack_channel, slack, session_id
):
    two = {"name": "two people", "actions": ["pay_*"], "requiredApprovals": 2}
    assert admin_api.put("policies", {"items": [two]}).status_code == 200
    open_action(api, session_id, call_id="p1", name="pay_vendor")
    deciding.decide(session_id, "p1", decision="approve", decider=as_approver("<b>&co"))
    deliver_due()

    [update] = slack.called("chat.update")
    assert [element["text"]["text"] for element in buttons(update)] == ["Approve", "Reject", "Open in HistoryHub"]
    assert "Votes so far: &lt;b&gt;&amp;co (approve); 1 more approval needed" in json.dumps(update["body"]["blocks"])

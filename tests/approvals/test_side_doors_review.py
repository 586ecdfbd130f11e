"""Side doors found in review (docs/api.md, "Who may decide: approval policies"): ways a decision could be made by
fewer or other deciders than the policy that governs it asks for. Each through the public surface, in a project
other than ``default``."""

import html
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import escalation
from historyhub.history.dialects.base import parse_timestamp
from historyhub.history.models import ClientAction
from historyhub.projects.models import Project, Role
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.html import parse

PROJECT = "acme"
SESSION = "s1"
# Large refunds need two of finance, and only after an hour the managers too; every other refund any approver, and
# after a minute it is announced (escalated to nobody more).
LARGE_REFUNDS = {
    "name": "Large refunds",
    "actions": ["refund_*"],
    "when": [{"argument": "amount", "op": "gt", "value": 10000}],
    "approverGroups": ["finance"],
    "requiredApprovals": 2,
    "peopleOnly": True,
    "escalateAfterSeconds": 3600,
    "escalateTo": ["managers"],
}
ALL_REFUNDS = {"name": "All refunds", "actions": ["refund_*"], "escalateAfterSeconds": 60, "escalateTo": []}


@pytest.fixture
def acme(db):
    Project.objects.create(id=PROJECT, name="Acme")
    people = {name: make_member(name, Role.APPROVER, PROJECT) for name in ("fay", "gus", "mo", "mia")}
    admin = ApiClient(ApiKey.issue("acme admin", "admin", project=PROJECT)[1])
    assert admin.put("groups/finance", {"members": ["fay", "gus"]}).status_code == 200
    assert admin.put("groups/managers", {"members": ["mo", "mia"]}).status_code == 200
    assert admin.put("policies", {"items": [LARGE_REFUNDS, ALL_REFUNDS]}).status_code == 200
    agent = ApiClient(ApiKey.issue("acme agent", "write", project=PROJECT)[1])
    assert agent.post("sessions", {"sessionId": SESSION, "agent": "support"}).status_code == 201
    return {"people": people, "admin": admin, "agent": agent}


def open_refund(acme, amount):
    body = {"callId": "r1", "name": "refund_card", "arguments": {"amount": amount}}
    opened = acme["agent"].post(f"sessions/{SESSION}/client-actions", body)
    assert opened.status_code == 201
    return opened.json()


def read(acme):
    return acme["agent"].get(f"sessions/{SESSION}/client-actions/r1").json()


def on_dashboard(acme, name, arguments=None):
    url = reverse("dashboard:decide_action", args=[PROJECT, SESSION, "r1"])
    data = {"decision": "approve", **({"arguments": arguments} if arguments is not None else {})}
    return post(logged_in(acme["people"][name]), url, data, project=PROJECT)


def test_the_escalation_of_the_actions_own_policy_does_not_open_the_edited_arguments_policy_to_its_escalation(acme):
    """An edit is governed as if the agent had asked for it: "Large refunds" lets managers decide only once an
    action under it waited an hour. A small refund escalated after a minute under "All refunds" does not let two
    managers approve it edited to 5,000,000 then."""
    opened = open_refund(acme, 5)
    assert opened["policy"]["name"] == "All refunds"
    assert escalation.sweep_escalations(now=parse_timestamp(opened["createdAt"]) + timedelta(seconds=61)) == 1

    for name in ("mo", "mia"):
        refused = on_dashboard(acme, name, '{"amount": 5000000}')
        assert refused.status_code == 403
        said = html.unescape(refused.content.decode())
        assert 'The policy "Large refunds" lets only members of finance decide these arguments.' in said
    waiting = read(acme)
    assert (waiting["status"], waiting["votes"]) == ("waiting", [])

    # Finance decides it as the policy says.
    assert on_dashboard(acme, "fay", '{"amount": 5000000}').status_code == 302
    assert on_dashboard(acme, "gus", '{"amount": 5000000}').status_code == 302
    approved = read(acme)
    assert (approved["status"], approved["approvedArguments"]) == ("approved", {"amount": 5000000})


def test_once_it_waited_as_long_as_the_edited_arguments_policy_says_its_escalation_groups_may_decide_them(acme):
    """As if asked for: an action that has waited the hour "Large refunds" escalates after may be approved edited to
    5,000,000 by two managers."""
    open_refund(acme, 5)
    ClientAction.objects.filter(call_id="r1").update(created_at=timezone.now() - timedelta(seconds=3601))

    assert on_dashboard(acme, "mo", '{"amount": 5000000}').status_code == 302
    assert read(acme)["status"] == "waiting"
    assert on_dashboard(acme, "mia", '{"amount": 5000000}').status_code == 302
    approved = read(acme)
    assert (approved["status"], approved["approvedArguments"]) == ("approved", {"amount": 5000000})


# One person, one approval: a key a superuser makes in the admin is theirs ---------------------------------------

TWO_FROM_FINANCE = {
    "name": "Two from finance",
    "actions": ["pay_*"],
    "approverGroups": ["finance"],
    "requiredApprovals": 2,
}


def key_made_in_the_admin(client, name, scopes="decide"):
    """A key made on the admin's add page, as a browser does; the key in clear (shown once on the answer)."""
    client.get("/admin/apikeys/apikey/add/")
    answer = client.post(
        "/admin/apikeys/apikey/add/",
        {"project": PROJECT, "name": name, "scopes": scopes},
        headers={"X-CSRFToken": client.cookies["csrftoken"].value},
    )
    assert answer.status_code == 200, answer.content
    return parse(answer).one("#issued-key")["value"]


def test_a_superuser_in_the_group_cannot_add_an_approval_with_a_key_they_made_in_the_admin(acme):
    root = User.objects.create_superuser("root", password="root-password-1")
    assert acme["admin"].put("groups/finance", {"members": ["fay", "gus", "root"]}).status_code == 200
    assert acme["admin"].put("policies", {"items": [TWO_FROM_FINANCE]}).status_code == 200
    body = {"callId": "p1", "name": "pay_vendor", "arguments": {"iban": "X", "amount": 100000}}
    assert acme["agent"].post(f"sessions/{SESSION}/client-actions", body).status_code == 201
    operator = logged_in(root)
    url = reverse("dashboard:decide_action", args=[PROJECT, SESSION, "p1"])
    assert post(operator, url, {"decision": "approve"}, project=PROJECT).status_code == 302

    key = key_made_in_the_admin(operator, "root bot")
    again = ApiClient(key).post(f"sessions/{SESSION}/client-actions/p1/decision", {"decision": "approve"})
    assert again.status_code == 200
    waiting = acme["agent"].get(f"sessions/{SESSION}/client-actions/p1").json()
    assert (waiting["status"], waiting["approvalsNeeded"]) == ("waiting", 1)
    assert [(vote["by"], vote["via"]) for vote in waiting["votes"]] == [("root", "dashboard")]

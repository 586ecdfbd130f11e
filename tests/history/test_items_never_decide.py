"""An agent's items never decide its own action (docs/dialects.md, "What an agent's items may decide").

An item that reports an outcome for a waiting action (an ``mcp_approval_response``, an Orcha ``client_action``
with another status, a tool output for its call) is stored verbatim. When a policy governs the action, or it was
opened through ``POST …/client-actions``, the action waits on for its deciders and its cards show the report as
unconfirmed; a pop takes the report back. Only an action that the agent's own history opened under no policy is
settled by the report, as "agent (reported)", with no vote and no audit row claiming a person.
"""

import json

import pytest
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.audit.models import AuditEntry
from historyhub.history.action_events import Event
from historyhub.notifications.models import Channel, Delivery
from historyhub.projects.models import Group, Project, Role
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.items import function_call, function_output
from tests.support.readers import assert_error, decision_url, items_via_api

SESSION = "pay-1"
ARGUMENTS = {"vendor": "Acme Ltd", "iban": "DE89370400440532013000", "amount": 4200}
FOUR_EYES = {
    "name": "four eyes",
    "agents": ["*"],
    "actions": ["pay_vendor"],
    "approverGroups": ["finance"],
    "requiredApprovals": 2,
    "peopleOnly": True,
}
UNCONFIRMED = "The agent reported: {} (unconfirmed)"


@pytest.fixture
def finance(db):
    """ada and bob, approvers in the finance group; the dashboard as each of them."""
    people = [make_member(name, Role.APPROVER) for name in ("ada", "bob")]
    Group.objects.create(project_id="default", name="finance").members.set(people)
    return [logged_in(person) for person in people]


@pytest.fixture
def four_eyes(admin_api, finance):
    answer = admin_api.put("policies", {"items": [FOUR_EYES]})
    assert answer.status_code == 200, answer.content
    return finance


@pytest.fixture
def channel(db):
    """A webhook channel hearing every event, so an announcement would leave an outbox row."""
    return Channel.objects.create(
        project_id="default", kind="webhook", name="ops", events_json=json.dumps(Event.values)
    )


@pytest.fixture
def session(api):
    assert api.post("sessions", {"sessionId": SESSION, "agent": "payments"}).status_code == 201
    return SESSION


def append(api, *items, session_id=SESSION):
    answer = api.post(f"sessions/{session_id}/items", {"items": list(items)})
    assert answer.status_code == 200, answer.content


def open_through_the_api(api, call_id):
    opened = api.post(
        f"sessions/{SESSION}/client-actions", {"callId": call_id, "name": "pay_vendor", "arguments": ARGUMENTS}
    )
    assert opened.status_code == 201, opened.content
    # The agent's key may not decide what it asked: the front door is shut.
    refused = api.post(f"sessions/{SESSION}/client-actions/{call_id}/decision", {"decision": "approve"})
    assert_error(refused, 403, "forbidden")


def mcp_request(call_id):
    return {"type": "mcp_approval_request", "id": call_id, "name": "pay_vendor", "arguments": json.dumps(ARGUMENTS)}


def mcp_approval(call_id, approve=True):
    return {"type": "mcp_approval_response", "approval_request_id": call_id, "approve": approve}


def orcha_opening(call_id):
    return {"type": "client_action", "callId": call_id, "name": "pay_vendor", "arguments": ARGUMENTS}


def orcha_outcome(call_id, status="approved"):
    return {"type": "client_action", "callId": call_id, "status": status}


def action(api, call_id, session_id=SESSION):
    answer = api.get(f"sessions/{session_id}/client-actions/{call_id}")
    assert answer.status_code == 200, answer.content
    return answer.json()


def history_item(api, item_id, session_id=SESSION):
    [item] = [item for item in api.get(f"sessions/{session_id}/history").json()["items"] if item["id"] == item_id]
    return item


def session_page(client):
    return client.get(reverse("dashboard:session", args=["default", SESSION])).content.decode()


def inbox(client):
    return client.get(reverse("dashboard:approvals", args=["default"])).content.decode()


class Unchanged:
    """What must not move when an item reports: the audit log and the outbox."""

    def __init__(self):
        self.audit = AuditEntry.objects.count()
        self.deliveries = Delivery.objects.count()

    def check(self):
        assert AuditEntry.objects.count() == self.audit
        assert Delivery.objects.count() == self.deliveries
        assert not Delivery.objects.filter(event=Event.DECIDED).exists()


def assert_still_waiting_for_its_deciders(api, call_id):
    shown = action(api, call_id)
    assert (shown["status"], shown["resolvedBy"], shown["decision"]) == ("waiting", None, None)
    assert (shown["votes"], shown["approvalsNeeded"], shown["reported"]) == ([], 2, False)
    snapshot = api.get(f"sessions/{SESSION}").json()
    assert snapshot["runStatus"] == "waiting_for_client_action"
    assert [pending["callId"] for pending in snapshot["pendingClientActions"]] == [call_id]


def approve_on_the_dashboard(people, call_id):
    for person in people:
        answer = post(person, decision_url(SESSION, call_id), {"decision": "approve", "comment": ""})
        assert answer.status_code in (200, 302), answer.content


# The reproductions: a report on a governed action, or on one opened through the API ---------------------------------


@pytest.mark.parametrize(
    "opening, report, reported",
    [
        ("api", mcp_approval, "approved"),
        ("api", orcha_outcome, "approved"),
        ("mcp", mcp_approval, "approved"),
        ("orcha", orcha_outcome, "approved"),
        ("orcha", lambda call_id: orcha_outcome(call_id, "rejected"), "rejected"),
    ],
)
def test_an_item_reporting_an_outcome_leaves_a_governed_action_waiting_and_shows_it_unconfirmed(
    api, session, four_eyes, channel, opening, report, reported
):
    if opening == "api":
        open_through_the_api(api, "c1")
    else:
        append(api, mcp_request("c1") if opening == "mcp" else orcha_opening("c1"))
    before = Unchanged()

    append(api, report("c1"))

    assert items_via_api(api, SESSION)[-1] == report("c1")
    assert_still_waiting_for_its_deciders(api, "c1")
    before.check()
    card = history_item(api, "client-action:c1")
    assert (card["status"], card["agentReport"]) == ("waiting", reported)
    ada, _ = four_eyes
    assert UNCONFIRMED.format(reported) in session_page(ada)
    assert UNCONFIRMED.format(reported) in inbox(ada)


def test_a_pop_takes_the_unconfirmed_report_back_and_the_deciders_still_decide(api, session, four_eyes, channel):
    open_through_the_api(api, "c1")
    append(api, mcp_approval("c1"))
    ada, _ = four_eyes
    assert UNCONFIRMED.format("approved") in session_page(ada)

    assert api.post(f"sessions/{SESSION}/items/pop").status_code == 200

    assert "agentReport" not in history_item(api, "client-action:c1")
    assert "The agent reported" not in session_page(ada)
    assert "The agent reported" not in inbox(ada)
    assert_still_waiting_for_its_deciders(api, "c1")
    approve_on_the_dashboard(four_eyes, "c1")
    decided = action(api, "c1")
    assert (decided["status"], decided["resolvedBy"], decided["reported"]) == ("approved", "bob", False)
    assert [vote["by"] for vote in decided["votes"]] == ["ada", "bob"]
    assert Delivery.objects.filter(event=Event.DECIDED).count() == 1


def test_after_a_report_the_deciders_decide_as_ever(api, session, four_eyes):
    append(api, orcha_opening("c1"), orcha_outcome("c1", "approved"))

    approve_on_the_dashboard(four_eyes[:1], "c1")
    assert action(api, "c1")["approvalsNeeded"] == 1
    reject = post(four_eyes[1], decision_url(SESSION, "c1"), {"decision": "reject", "comment": "wrong IBAN"})
    assert reject.status_code in (200, 302)

    decided = action(api, "c1")
    assert (decided["status"], decided["resolvedBy"], decided["reported"]) == ("rejected", "bob", False)
    assert "agentReport" not in history_item(api, "client-action:c1")


# Tool outputs ----------------------------------------------------------------------------------------------------


def test_a_tool_output_for_a_gated_call_leaves_its_action_waiting(api, session, four_eyes, channel):
    append(api, function_call("c1", name="pay_vendor", arguments=json.dumps(ARGUMENTS)))
    open_through_the_api(api, "c1")
    before = Unchanged()

    append(api, function_output("c1", "paid"))

    assert_still_waiting_for_its_deciders(api, "c1")
    before.check()
    card = history_item(api, "action:c1")
    assert (card["status"], card["output"]) == ("waiting", "paid")
    assert card["approval"] == {"status": "waiting", "agentReport": "completed"}
    ada, _ = four_eyes
    assert UNCONFIRMED.format("completed") in session_page(ada)
    # Approved after all: the call shows what its output said.
    approve_on_the_dashboard(four_eyes, "c1")
    card = history_item(api, "action:c1")
    assert (card["status"], card["approval"]["status"]) == ("completed", "approved")


def test_a_tool_output_for_an_action_opened_through_the_api_leaves_it_waiting_even_under_no_policy(api, session):
    open_through_the_api(api, "c1")
    append(api, function_call("c1", name="pay_vendor"), function_output("c1", "error: declined", isError=True))

    shown = action(api, "c1")
    assert (shown["status"], shown["resolvedBy"], shown["reported"]) == ("waiting", None, False)
    card = history_item(api, "client-action:c1")
    assert (card["status"], card["agentReport"]) == ("waiting", "failed")

    assert api.post(f"sessions/{SESSION}/items/pop").status_code == 200
    assert "agentReport" not in history_item(api, "client-action:c1")


# What a report may settle: an action that only the agent's own history opened, under no policy -------------------


@pytest.fixture
def acme(db):
    """A write key of another project, which has no policy."""
    Project.objects.create(id="acme", name="Acme")
    client = ApiClient(ApiKey.issue("agent", "write", project="acme")[1])
    assert client.post("sessions", {"sessionId": SESSION, "agent": "payments"}).status_code == 201
    Channel.objects.create(project_id="acme", kind="webhook", name="ops", events_json=json.dumps(Event.values))
    return client


@pytest.mark.parametrize(
    "opening, report, status",
    [
        (mcp_request, mcp_approval, "approved"),
        (mcp_request, lambda call_id: mcp_approval(call_id, approve=False), "rejected"),
        (orcha_opening, orcha_outcome, "approved"),
        (orcha_opening, lambda call_id: function_output(call_id, "paid"), "completed"),
    ],
)
def test_an_ungoverned_action_the_agents_history_opened_settles_as_reported(acme, opening, report, status):
    audit = AuditEntry.objects.count()
    append(acme, opening("c1"), session_id=SESSION)

    append(acme, report("c1"), session_id=SESSION)

    shown = action(acme, "c1")
    assert (shown["status"], shown["resolvedBy"], shown["reported"]) == (status, "agent (reported)", True)
    assert (shown["votes"], shown["approvalsNeeded"], shown["policy"]) == ([], 0, None)
    assert AuditEntry.objects.count() == audit
    assert history_item(acme, "client-action:c1")["status"] in ("completed", "failed")
    # A pop takes the settling back, as every projection change.
    assert acme.post(f"sessions/{SESSION}/items/pop").status_code == 200
    assert (action(acme, "c1")["status"], action(acme, "c1")["reported"]) == ("waiting", False)


def test_a_report_on_an_action_people_decided_shows_no_second_card_saying_otherwise(api, session, four_eyes):
    append(api, orcha_opening("c1"))
    post(four_eyes[0], decision_url(SESSION, "c1"), {"decision": "reject", "comment": "wrong IBAN"})

    append(api, orcha_outcome("c1", "approved"))

    cards = [item for item in api.get(f"sessions/{SESSION}/history").json()["items"] if item.get("callId") == "c1"]
    assert [(card["id"], card["status"]) for card in cards] == [("client-action:c1", "failed")]
    assert action(api, "c1")["status"] == "rejected"

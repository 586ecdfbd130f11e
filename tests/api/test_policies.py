"""Approval policies: reading and replacing them, the policy fixed on an action when it opens, groups, peopleOnly,
several approvers and the votes kept as the audit (docs/api.md, "Who may decide: approval policies")."""

from datetime import timedelta

import pytest

from historyhub.approvals import deciding, escalation
from historyhub.approvals.deciders import Decider
from historyhub.history.dialects.base import parse_timestamp as parse_time
from historyhub.lib.errors import DecisionNotAllowed, Forbidden
from historyhub.lib.times import format_time
from historyhub.projects.models import Group, Role
from tests.support.actors import make_member
from tests.support.readers import assert_error

TWO_FROM_FINANCE = {
    "name": "large refunds",
    "agents": ["supp*"],
    "actions": ["issue_refund"],
    "when": [{"argument": "amount", "op": "gt", "value": 10000}],
    "approverGroups": ["finance"],
    "requiredApprovals": 2,
}


@pytest.fixture
def finance(db):
    people = [make_member(name, Role.APPROVER) for name in ("ada", "bob", "cy")]
    group = Group.objects.create(project_id="default", name="finance")
    group.members.set(people[:2])
    return [Decider.person(person) for person in people]


@pytest.fixture
def policy(admin_api, finance):
    answer = admin_api.put("policies", {"items": [TWO_FROM_FINANCE]})
    assert answer.status_code == 200, answer.content
    return answer.json()["items"][0]


def open_refund(api, session_id, amount, call_id="r1"):
    body = {"callId": call_id, "name": "issue_refund", "arguments": {"amount": amount}}
    return api.post(f"sessions/{session_id}/client-actions", body).json()


def vote(person, session_id, call_id="r1", **decision):
    return deciding.decide(session_id, call_id, decider=person, **{"decision": "approve", **decision}).action


def test_policies_are_replaced_by_an_admin_key_and_read_by_any(admin_api, read_api, api, policy):
    assert policy["requiredApprovals"] == 2 and policy["escalateTo"] == [] and policy["peopleOnly"] is False
    assert read_api.get("policies").json() == {"items": [policy]}
    assert_error(api.put("policies", {"items": []}), 403, "forbidden")


def test_a_policy_naming_an_unknown_group_is_refused_and_nothing_changes(admin_api, policy):
    refused = admin_api.put("policies", {"items": [{**TWO_FROM_FINANCE, "approverGroups": ["legal"]}]})

    assert "legal" in assert_error(refused, 400, "invalid_input")
    assert admin_api.get("policies").json()["items"] == [policy]


def test_the_first_matching_policy_governs_and_its_conditions_must_hold(api, session_id, policy):
    small, large = open_refund(api, session_id, 500, "small"), open_refund(api, session_id, 20000, "large")

    assert small["policy"] is None and small["approvalsNeeded"] == 1
    assert large["policy"] == {
        "name": "large refunds",
        "requiredApprovals": 2,
        "approverGroups": ["finance"],
        "peopleOnly": False,
    }
    assert large["approvalsNeeded"] == 2


def test_two_distinct_approvers_approve_and_the_same_one_twice_does_not(api, session_id, policy, finance):
    ada, bob, _ = finance
    open_refund(api, session_id, 20000)

    vote(ada, session_id)
    assert vote(ada, session_id).status == "waiting"
    waiting = api.get(f"sessions/{session_id}/client-actions/r1").json()
    assert (waiting["status"], waiting["approvalsNeeded"], [v["by"] for v in waiting["votes"]]) == (
        "waiting",
        1,
        ["ada"],
    )
    with pytest.raises(DecisionNotAllowed, match="You have already decided on this action."):
        vote(ada, session_id, decision="reject")

    vote(bob, session_id)
    approved = api.get(f"sessions/{session_id}/client-actions/r1").json()
    assert (approved["status"], approved["approvalsNeeded"], approved["resolvedBy"]) == ("approved", 0, "bob")
    assert [(v["by"], v["decision"], v["arguments"]) for v in approved["votes"]] == [
        ("ada", "approve", {"amount": 20000}),
        ("bob", "approve", {"amount": 20000}),
    ]


def test_edited_arguments_start_a_count_of_their_own(api, session_id, policy, finance):
    ada, bob, _ = finance
    open_refund(api, session_id, 20000)

    vote(ada, session_id)
    assert vote(bob, session_id, arguments={"amount": 15000}).status == "waiting"
    assert api.get(f"sessions/{session_id}/client-actions/r1").json()["approvalsNeeded"] == 1


def test_one_reject_rejects_at_once(api, session_id, policy, finance):
    ada, bob, _ = finance
    open_refund(api, session_id, 20000)
    vote(ada, session_id)

    assert vote(bob, session_id, decision="reject", comment="Too much.").status == "rejected"


def test_a_person_outside_the_groups_is_refused(api, session_id, policy, finance):
    open_refund(api, session_id, 20000)

    with pytest.raises(Forbidden, match="only members of finance"):
        vote(finance[2], session_id)
    assert api.get(f"sessions/{session_id}/client-actions/r1").json()["votes"] == []


def test_people_only_refuses_every_key_even_with_the_decide_scope(admin_api, api, decide_api, session_id, finance):
    admin_api.put("policies", {"items": [{**TWO_FROM_FINANCE, "requiredApprovals": 1, "peopleOnly": True}]})
    open_refund(api, session_id, 20000)

    refused = decide_api.post(f"sessions/{session_id}/client-actions/r1/decision", {"decision": "approve"})

    assert_error(refused, 403, "forbidden", "Only people may decide this action.")
    assert vote(finance[0], session_id).status == "approved"


def test_a_waiting_action_keeps_the_policy_it_opened_under(admin_api, api, session_id, policy, finance):
    open_refund(api, session_id, 20000)
    admin_api.put("policies", {"items": []})

    assert api.get(f"sessions/{session_id}/client-actions/r1").json()["policy"]["requiredApprovals"] == 2
    assert vote(finance[0], session_id).status == "waiting"


def test_the_sweep_escalates_a_waiting_action_and_then_the_second_group_may_decide(admin_api, api, session_id, finance):
    support = Group.objects.create(project_id="default", name="support")
    support.members.set([finance[2].user])
    escalating = {**TWO_FROM_FINANCE, "requiredApprovals": 1, "escalateAfterSeconds": 60, "escalateTo": ["support"]}
    admin_api.put("policies", {"items": [escalating]})
    opened = open_refund(api, session_id, 20000)
    with pytest.raises(Forbidden):
        vote(finance[2], session_id)

    assert escalation.sweep_escalations(now=parse_time(opened["createdAt"]) + timedelta(seconds=59)) == 0
    later = parse_time(opened["createdAt"]) + timedelta(seconds=61)
    assert escalation.sweep_escalations(now=later) == 1
    assert escalation.sweep_escalations(now=later) == 0

    assert api.get(f"sessions/{session_id}/client-actions/r1").json()["escalatedAt"] == format_time(later)
    assert vote(finance[2], session_id).status == "approved"

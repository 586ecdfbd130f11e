"""Edited arguments are governed as if they had been asked for (docs/api.md, "Who may decide: approval policies"):
an approve with ``arguments`` is a vote for them under the policy that governs them. "Large refunds" governs
``refund_*`` when ``amount gt 10000``: two of finance, people only. An action opened with amount 5 is governed by
nothing, and an edit to 5,000,000 needs what "Large refunds" needs, through the same rule as any decision."""

import pytest
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.projects.models import Project, Role
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.html import parse
from tests.support.readers import assert_error

LARGE_REFUNDS = {
    "name": "Large refunds",
    "actions": ["refund_*"],
    "when": [{"argument": "amount", "op": "gt", "value": 10000}],
    "approverGroups": ["finance"],
    "requiredApprovals": 2,
    "peopleOnly": True,
}
ESCAPE = {"amount": 5000000}


@pytest.fixture(params=["default", "acme"])
def project(request, db):
    """The same story in the default project and in another one (whose session ids its keys prefix)."""
    project = request.param
    Project.objects.get_or_create(id=project, defaults={"name": project.capitalize()})
    people = {
        "fay": make_member("fay", Role.APPROVER, project),
        "gus": make_member("gus", Role.APPROVER, project),
        "out": make_member("out", Role.APPROVER, project),
    }
    admin = ApiClient(ApiKey.issue("admin", "admin", project=project)[1])
    assert admin.put("groups/finance", {"members": ["fay", "gus"]}).status_code == 200
    assert admin.put("policies", {"items": [LARGE_REFUNDS]}).status_code == 200
    agent = ApiClient(ApiKey.issue("agent", "write", project=project)[1])
    assert agent.post("sessions", {"sessionId": "s1", "agent": "support"}).status_code == 201
    return {"id": project, "people": people, "agent": agent}


def open_refund(project, amount, call_id="r1"):
    body = {"callId": call_id, "name": "refund_card", "arguments": {"amount": amount}}
    opened = project["agent"].post("sessions/s1/client-actions", body)
    assert opened.status_code == 201
    return opened.json()


def read(project, call_id="r1"):
    return project["agent"].get(f"sessions/s1/client-actions/{call_id}").json()


def on_dashboard(project, name, arguments=None, call_id="r1", decision="approve"):
    url = reverse("dashboard:decide_action", args=[project["id"], "s1", call_id])
    data = {"decision": decision, **({"arguments": arguments} if arguments is not None else {})}
    return post(logged_in(project["people"][name]), url, data, project=project["id"])


def test_an_approver_outside_finance_cannot_move_an_ungoverned_action_under_large_refunds(project):
    assert open_refund(project, 5)["policy"] is None

    refused = on_dashboard(project, "out", '{"amount": 5000000}')

    assert refused.status_code == 403
    assert 'The policy "Large refunds" lets only members of finance decide these arguments.' in parse(refused).text()
    waiting = read(project)
    assert (waiting["status"], waiting["votes"], waiting["approvalsNeeded"]) == ("waiting", [], 1)


def test_a_decide_key_cannot_either_under_a_people_only_policy(project):
    open_refund(project, 5)
    decide = ApiClient(ApiKey.issue("bot", "decide", project=project["id"])[1])

    refused = decide.post("sessions/s1/client-actions/r1/decision", {"decision": "approve", "arguments": ESCAPE})

    assert_error(refused, 403, "forbidden", "Only people may decide this action.")
    assert read(project)["status"] == "waiting"
    # The arguments asked for stay the key's to approve: nothing governs them.
    assert decide.post("sessions/s1/client-actions/r1/decision", {"decision": "approve"}).json()["status"] == "approved"


def test_two_of_finance_approve_the_edited_arguments(project):
    open_refund(project, 5)

    assert on_dashboard(project, "fay", '{"amount": 5000000}').status_code == 302
    waiting = read(project)
    assert (waiting["status"], waiting["approvalsNeeded"]) == ("waiting", 1)
    assert [(vote["by"], vote["arguments"], vote["counts"]) for vote in waiting["votes"]] == [("fay", ESCAPE, True)]

    assert on_dashboard(project, "gus", '{"amount": 5000000}').status_code == 302
    approved = read(project)
    assert (approved["status"], approved["approvedArguments"], approved["resolvedBy"]) == ("approved", ESCAPE, "gus")
    assert approved["policy"] is None and approved["arguments"] == {"amount": 5}


def test_one_of_finance_and_someone_outside_do_not_make_two(project):
    open_refund(project, 5)
    on_dashboard(project, "fay", '{"amount": 5000000}')

    assert on_dashboard(project, "out", '{"amount": 5000000}').status_code == 403
    assert read(project)["status"] == "waiting"


def test_a_vote_for_the_edited_arguments_stops_counting_once_its_decider_leaves_finance(project):
    open_refund(project, 5)
    on_dashboard(project, "fay", '{"amount": 5000000}')
    admin = ApiClient(ApiKey.issue("admin 2", "admin", project=project["id"])[1])
    assert admin.put("groups/finance", {"members": ["gus", "out"]}).status_code == 200

    vote = read(project)["votes"][0]
    assert (vote["counts"], vote["why"]) == (
        False,
        'The policy "Large refunds" lets only members of finance decide these arguments.',
    )
    on_dashboard(project, "gus", '{"amount": 5000000}')
    assert read(project)["status"] == "waiting"
    on_dashboard(project, "out", '{"amount": 5000000}')
    assert read(project)["approvedArguments"] == ESCAPE


def test_at_exactly_the_threshold_the_edit_stays_ungoverned_and_one_above_it_does_not(project):
    open_refund(project, 5)
    assert on_dashboard(project, "out", '{"amount": 10001}').status_code == 403

    assert on_dashboard(project, "out", '{"amount": 10000}').status_code == 302
    approved = read(project)
    assert (approved["status"], approved["approvedArguments"]) == ("approved", {"amount": 10000})


def test_an_edit_that_stays_under_the_actions_policy_counts_as_before(project):
    opened = open_refund(project, 20000)
    assert opened["policy"]["name"] == "Large refunds"

    assert on_dashboard(project, "out", '{"amount": 15000}').status_code == 403
    # The message names the action, as for any vote under its own policy.
    assert "decide this action." in parse(on_dashboard(project, "out")).text()
    on_dashboard(project, "fay", '{"amount": 15000}')
    on_dashboard(project, "gus")
    assert read(project)["approvalsNeeded"] == 1
    assert on_dashboard(project, "gus", '{"amount": 15000}').status_code == 409
    assert read(project)["status"] == "waiting"


def test_a_governed_action_edited_down_is_governed_as_if_asked_for_that(project):
    open_refund(project, 20000)

    assert on_dashboard(project, "out", '{"amount": 500}').status_code == 302

    approved = read(project)
    assert (approved["status"], approved["approvedArguments"]) == ("approved", {"amount": 500})

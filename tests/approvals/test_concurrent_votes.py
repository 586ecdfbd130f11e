"""Approvers voting at the same moment from separate processes (as separate server workers would), each with its
own database connection: the session's row lock settles them, so no vote is lost and no action is approved with
one approval too few (docs/api.md, "Several approvers")."""

import pytest
from django.contrib.auth.models import User

from historyhub.approvals import deciding, policies
from historyhub.approvals.deciders import Decider
from historyhub.approvals.models import Vote
from historyhub.history import client_actions, sessions
from tests.support.actors import make_approver
from tests.support.processes import PROCESSES, run_together

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def waiting_refund():
    for index in range(PROCESSES):
        make_approver(f"approver{index}")
    policies.replace("default", [{"name": "five people", "requiredApprovals": 5}], actor="tests")
    sessions.ensure(agent="supportAgent", session_id="ses_votes")
    client_actions.open_action("ses_votes", call_id="r1", name="issue_refund", arguments={"amount": 20000})


def approve(index, arguments=None):
    person = Decider.person(User.objects.get(username=f"approver{index}"))
    action = deciding.decide("ses_votes", "r1", decision="approve", arguments=arguments, decider=person).action
    return action.status


def approve_one_of_two_amounts(index):
    return approve(index, {"amount": 20000 if index % 2 else 19000})


def test_of_eight_approvers_at_once_exactly_the_fifth_approves(waiting_refund):
    results = run_together(approve)

    action = client_actions.get("ses_votes", "r1")
    counted = list(Vote.objects.filter(action=action).order_by("at", "pk"))
    assert action.status == "approved"
    assert len(counted) == 5
    assert action.resolved_by == counted[-1].by
    # Four saw it still waiting after their vote; the fifth approved it; the last three found it approved.
    assert list(results.values()).count("waiting") == 4


def test_votes_split_between_two_amounts_are_all_kept_and_approve_neither(waiting_refund):
    run_together(approve_one_of_two_amounts)

    action = client_actions.get("ses_votes", "r1")
    assert action.status == "waiting"
    assert Vote.objects.filter(action=action).count() == PROCESSES
    assert sorted(vote.by for vote in action.votes.all()) == sorted(f"approver{i}" for i in range(PROCESSES))

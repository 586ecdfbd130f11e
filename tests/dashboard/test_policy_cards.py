"""The cards of an action governed by a policy: the votes so far, who may still decide, and a person outside
the policy's groups sees no buttons, is told why, and a forced POST is refused."""

import pytest
from django.urls import reverse

from historyhub.approvals import deciding, policies
from historyhub.approvals.deciders import Decider
from historyhub.history import client_actions, sessions
from historyhub.history.models import ClientAction, TimelineEntry
from historyhub.projects.models import Group, Role
from tests.support.actors import confirm_batch, make_member, post
from tests.support.html import parse

DECIDE = reverse("dashboard:decide_selected", args=["default"])


@pytest.fixture
def governed(approver):
    ada = make_member("ada", Role.APPROVER)
    finance = Group.objects.create(project_id="default", name="finance")
    finance.members.set([ada])
    policies.replace(
        "default",
        [{"name": "two from finance", "approverGroups": ["finance"], "requiredApprovals": 2}],
        actor="tests",
    )
    sessions.ensure(agent="supportAgent", session_id="refund-9")
    client_actions.open_action("refund-9", call_id="r1", name="issue_refund", arguments={"amount": 20000})
    deciding.decide("refund-9", "r1", decision="approve", decider=Decider.person(ada))
    return ClientAction.objects.get(call_id="r1")


def test_the_card_shows_the_votes_and_who_may_still_decide(approver_client, governed):
    page = parse(approver_client.get(reverse("dashboard:session", args=["default", "refund-9"])))

    text = page.text(".entry-client_action")
    vote = governed.votes.get()
    assert f"1 of 2 approvals: ada, {vote.at:%H:%M}" in text
    assert "Members of finance may decide." in text


def test_a_person_outside_the_groups_sees_no_buttons_is_told_why_and_a_forced_post_is_refused(
    approver_client, governed
):
    page = parse(approver_client.get(reverse("dashboard:session", args=["default", "refund-9"])))

    assert page.all(".entry-client_action button[name=decision]") == []
    assert 'The policy "two from finance" lets only members of finance decide this action.' in page.text(
        ".entry-client_action"
    )
    entry = TimelineEntry.objects.get(session_id="refund-9", key=governed.entry_key)
    url = reverse("dashboard:decide_entry", args=["default", "refund-9", entry.pk])
    assert post(approver_client, url, {"decision": "approve"}).status_code == 403
    assert ClientAction.objects.get(pk=governed.pk).votes.count() == 1


def test_a_batch_confirmation_names_the_action_the_policy_keeps_from_the_person_and_leaves_it_out(
    approver_client, governed
):
    # No policy governs an action opened once the project has none; r1 keeps the one it opened under.
    policies.replace("default", [], actor="tests")
    sessions.ensure(agent="supportAgent", session_id="mail-1")
    client_actions.open_action("mail-1", call_id="m1", name="send_email", arguments={})
    asked = post(approver_client, DECIDE, {"selected": ["refund-9/r1", "mail-1/m1"], "decision": "approve"}, htmx=True)

    shown = parse(asked).one("section.confirmation")
    assert shown.text("h2") == "Approve 1 action?"
    assert shown.text(".undecidable li") == (
        'issue_refund r1 in refund-9: The policy "two from finance" lets only members of finance decide this action.'
    )
    assert [item.text("strong") for item in shown.all("ol.confirmation-items li")] == ["send_email"]

    response = confirm_batch(approver_client, asked)

    assert response.status_code == 200
    assert client_actions.get("mail-1", "m1").status == "approved"
    assert ClientAction.objects.get(pk=governed.pk).votes.count() == 1


@pytest.mark.parametrize("htmx", [True, False])
def test_a_refused_batch_decision_says_which_action_and_why_without_a_traceback(
    approver_client, governed, htmx, caplog
):
    response = post(approver_client, DECIDE, {"selected": ["refund-9/r1"], "decision": "approve"}, htmx=htmx)

    said = (
        'Nothing was decided, as refund-9/r1 could not be: The policy "two from finance" lets only members of '
        "finance decide this action."
    )
    if htmx:
        assert response.status_code == 403
        assert parse(response).text("#approval-messages") == said
    else:
        assert response.status_code == 302
        assert said in parse(approver_client.get(response["Location"])).text(".messages")
    assert ClientAction.objects.get(pk=governed.pk).votes.count() == 1
    assert not [record for record in caplog.records if record.exc_info]


def test_a_refused_card_decision_over_htmx_is_said_in_the_pages_message_area(approver_client, governed):
    entry = TimelineEntry.objects.get(session_id="refund-9", key=governed.entry_key)
    url = reverse("dashboard:decide_entry", args=["default", "refund-9", entry.pk])

    response = post(approver_client, url, {"decision": "approve"}, htmx=True)

    assert response.status_code == 403
    assert response["HX-Retarget"] == "#page-messages"
    assert parse(response).text(".notice.error") == (
        'The policy "two from finance" lets only members of finance decide this action.'
    )

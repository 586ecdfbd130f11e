"""A batch holding an action a policy keeps from the person: the confirmation names it beforehand, and a refused
decision is said on the page (historyhub/dashboard/batch_page.py)."""

import pytest
from playwright.sync_api import expect

from historyhub.approvals import policies
from historyhub.history import client_actions, sessions
from historyhub.projects.models import Group

pytestmark = pytest.mark.browser

KEPT = 'The policy "finance only" lets only members of finance decide this action.'


@pytest.fixture
def governed(transactional_db):
    Group.objects.create(project_id="default", name="finance")
    policies.replace("default", [{"name": "finance only", "approverGroups": ["finance"]}], actor="tests")
    sessions.ensure(agent="supportAgent", session_id="big-1", name="A big refund")
    client_actions.open_action("big-1", call_id="r1", name="issue_refund", arguments={"amount": 20000})
    # Opened once the project has no policy: any approver may decide it.
    policies.replace("default", [], actor="tests")
    sessions.ensure(agent="supportAgent", session_id="mail-1", name="A welcome mail")
    client_actions.open_action("mail-1", call_id="m1", name="send_email", arguments={"to": "ada@example.com"})


def test_the_confirmation_names_what_the_person_may_not_decide_and_confirming_decides_the_rest(approver_page, governed):
    page = approver_page
    page.goto("/p/default/approvals/")
    page.get_by_label("Select all 2 on this page").check()
    page.locator("#bulk-decision").get_by_role("button", name="Approve").click()

    confirmation = page.get_by_role("region", name="Approve 1 action?")
    expect(confirmation.locator(".undecidable")).to_contain_text(f"issue_refund r1 in A big refund: {KEPT}")
    confirmation.get_by_role("button", name="Confirm: approve 1 action").click()

    expect(page.locator("#approval-messages")).to_contain_text("Approved 1 action: send_email (m1)")
    assert client_actions.get("mail-1", "m1").status == "approved"
    assert client_actions.get("big-1", "r1").status == "waiting"


def test_a_refused_decision_says_which_action_and_why_on_the_page(approver_page, governed):
    page = approver_page
    page.goto("/p/default/approvals/")
    page.get_by_label("Select issue_refund in A big refund").check()
    page.locator("#bulk-decision").get_by_role("button", name="Approve").click()

    expect(page.locator("#approval-messages")).to_have_text(f"Nothing was decided, as big-1/r1 could not be: {KEPT}")
    assert client_actions.get("big-1", "r1").status == "waiting"

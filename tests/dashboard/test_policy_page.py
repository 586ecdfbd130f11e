"""The approval policies page: every member reads the policies in order and previews which would govern an
action; admins add, edit, reorder and delete them through the rule PUT /api/v1/policies applies, each change in
the audit log; anyone else's POST is refused and changes nothing (docs/dashboard.md, "Approval policies")."""

import pytest
from django.test import Client
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import policies
from historyhub.audit.models import AuditEntry
from historyhub.history import client_actions, sessions
from historyhub.projects.models import Group, Role
from tests.support.actors import ApiClient, make_member, post
from tests.support.html import parse

URL = reverse("dashboard:policies", args=["default"])
LARGE_REFUNDS = {
    "name": "large refunds",
    "agents": ["support*"],
    "actions": ["issue_refund"],
    "when": [{"argument": "amount", "op": "gt", "value": 10000}],
    "approverGroups": ["finance"],
    "requiredApprovals": 2,
    "peopleOnly": True,
    "escalateAfterSeconds": 3600,
    "escalateTo": ["managers"],
}
ANY_DELETE = {"name": "deletions", "actions": ["delete_*"]}


@pytest.fixture
def admin_client(db):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_member("ada", Role.ADMIN))
    return client


@pytest.fixture
def two_policies(db):
    for name in ("finance", "managers"):
        Group.objects.create(project_id="default", name=name)
    # "large refunds" needs two people from finance: a group that cannot supply them is refused.
    Group.objects.get(name="finance").members.set([make_member(name, Role.APPROVER) for name in ("fay", "finn")])
    return policies.replace("default", [LARGE_REFUNDS, ANY_DELETE], actor="tests")


def names():
    return [policy["name"] for policy in policies.listing("default")]


def shown_policies(response):
    return [item.text("h3") for item in parse(response).all(".policy-list > li")]


def policy_item(response, name):
    (item,) = [item for item in parse(response).all(".policy-list > li") if item.text("h3").endswith(f". {name}")]
    return item


def form_data(response, **values):
    """What the page's policy form sends as it is filled in, with ``values`` typed over it."""
    data = parse(response).one("#policy-form form").submitted()
    return {**data, **values}


def press(client, response, name, button):
    """Press one button of a policy in the list, as a browser would."""
    form = [form for form in policy_item(response, name).all("form") if form.buttons(button)][0]
    return post(client, URL, form.submitted(form.button(button)))


def test_every_member_reads_the_policies_in_order_and_only_admins_get_the_forms(
    viewer_client, admin_client, two_policies
):
    page = viewer_client.get(URL)

    assert page.status_code == 200
    assert shown_policies(page) == ["1. large refunds", "2. deletions"]
    terms = policy_item(page, "large refunds").terms()
    assert terms == {
        "Agents": "support*",
        "Actions": "issue_refund",
        "When": "amount gt 10000",
        "Approvers": "members of finance",
        "Approvals needed": "2",
        "People only": "yes: keys may not decide",
        "Escalation": "after 3600 s, to managers",
    }
    assert policy_item(page, "deletions").terms()["Approvers"] == "every approver of the project"
    assert parse(page).all("main form[method=post]") == []
    assert "fixed when the action opens" in parse(page).text("#policies-rule")
    admin_page = parse(admin_client.get(URL))
    assert admin_page.one("#policy-form form").button("Save policy")
    assert len(admin_page.buttons("Delete")) == 2


def test_an_admin_adds_a_policy_at_the_end(admin_client, two_policies):
    data = form_data(
        admin_client.get(URL),
        name=["small refunds"],
        agents=["supportAgent\nbilling*"],
        actions=["issue_refund"],
        when=['[{"argument": "amount", "op": "lte", "value": 10000}]'],
        approverGroups=["finance"],
    )

    answer = post(admin_client, URL, data)

    assert answer.status_code == 302
    assert names() == ["large refunds", "deletions", "small refunds"]
    added = policies.listing("default")[2]
    assert added == {
        "name": "small refunds",
        "agents": ["supportAgent", "billing*"],
        "actions": ["issue_refund"],
        "when": [{"argument": "amount", "op": "lte", "value": 10000}],
        "approverGroups": ["finance"],
        "requiredApprovals": 1,
        "peopleOnly": False,
        "escalateAfterSeconds": None,
        "escalateTo": [],
    }
    assert "The policy was saved." in parse(admin_client.get(URL)).text(".messages")


def test_an_admin_edits_a_policy_in_its_place_from_its_filled_in_form(admin_client, two_policies):
    edit_link = policy_item(admin_client.get(URL), "large refunds").link("Edit")["href"]
    form_page = admin_client.get(f"{URL}{edit_link.split('#')[0]}")
    assert parse(form_page).text("#policy-form-title") == "Edit the policy large refunds"

    answer = post(admin_client, URL, form_data(form_page, name=["big refunds"], requiredApprovals=["1"]))

    assert answer.status_code == 302
    assert names() == ["big refunds", "deletions"]
    assert policies.listing("default")[0] == {**LARGE_REFUNDS, "name": "big refunds", "requiredApprovals": 1}


def test_an_admin_moves_a_policy_down_and_up_and_deletes_one(admin_client, two_policies):
    assert press(admin_client, admin_client.get(URL), "large refunds", "Move down").status_code == 302
    assert names() == ["deletions", "large refunds"]
    assert press(admin_client, admin_client.get(URL), "large refunds", "Move up").status_code == 302
    assert names() == ["large refunds", "deletions"]

    assert press(admin_client, admin_client.get(URL), "large refunds", "Delete").status_code == 302

    assert names() == ["deletions"]
    assert shown_policies(admin_client.get(URL)) == ["1. deletions"]


@pytest.mark.parametrize("who", ["approver_client", "viewer_client"])
def test_a_post_from_anyone_but_an_admin_is_refused_and_changes_nothing(request, who, two_policies):
    client = request.getfixturevalue(who)
    before, audited = policies.listing("default"), AuditEntry.objects.count()

    for data in (
        {"action": "delete", "policy": "large refunds"},
        {"action": "move_down", "policy": "large refunds"},
        {"action": "save", "name": "everything", "agents": "*", "actions": "*", "requiredApprovals": "1"},
    ):
        refused = post(client, URL, data)
        assert refused.status_code == 403
        assert "Only the project's admins" in parse(refused).text("main")

    assert policies.listing("default") == before
    assert AuditEntry.objects.count() == audited


@pytest.mark.parametrize(
    ("typed", "error"),
    [
        ({"requiredApprovals": ["9"]}, "requiredApprovals must be an integer from 1 to 5."),
        ({"when": ['[{"argument": "amount", "op": "between", "value": 1}]']}, "when[0].op must be one of"),
        ({"when": ['[{"argument": "amount", "op": "in", "value": 5}]']}, "when[0].value must be a list with in."),
        ({"name": ["deletions"]}, "Policy names must be unique within the project."),
    ],
)
def test_invalid_input_is_shown_beside_the_form_and_changes_nothing(admin_client, two_policies, typed, error):
    before, audited = policies.listing("default"), AuditEntry.objects.count()

    refused = post(admin_client, URL, form_data(admin_client.get(URL), **{"name": ["new one"], **typed}))

    assert refused.status_code == 422
    assert error in parse(refused).text("#policy-form .errorlist")
    assert policies.listing("default") == before
    assert AuditEntry.objects.count() == audited


def test_conditions_that_are_not_json_are_shown_on_their_field_and_what_was_typed_stays(admin_client, two_policies):
    refused = post(admin_client, URL, form_data(admin_client.get(URL), name=["new one"], when=["amount > 10000"]))

    assert refused.status_code == 422
    assert "This is not valid JSON" in parse(refused).text("#policy-form .errorlist")
    assert parse(refused).field("when").exact_text().strip() == "amount > 10000"
    assert names() == ["large refunds", "deletions"]


def test_a_group_deleted_since_is_shown_ticked_and_saving_names_it(admin_client, two_policies):
    Group.objects.filter(name="managers").delete()
    form_page = admin_client.get(URL, {"edit": "large refunds"})
    ticked = [box["value"] for box in parse(form_page).all("input[name=escalateTo][checked]")]
    assert ticked == ["managers"]

    refused = post(admin_client, URL, form_data(form_page, requiredApprovals=["3"]))

    assert refused.status_code == 422
    assert "No group named 'managers' in this project." in parse(refused).text("#policy-form .errorlist")
    assert policies.listing("default")[0]["requiredApprovals"] == 2


def preview(client, **query):
    response = client.get(URL, query)
    assert response.status_code == 200
    return parse(response)


def test_the_preview_names_the_policy_an_opening_action_would_get(viewer_client, two_policies):
    large = preview(viewer_client, agent="supportAgent", action="issue_refund", arguments='{"amount": 25000}')
    deletion = preview(viewer_client, agent="anyone", action="delete_customer", arguments="")
    small = preview(viewer_client, agent="supportAgent", action="issue_refund", arguments='{"amount": 500}')

    assert large.text("#preview-result").startswith("Policy 1, large refunds, governs it: 2 approvals from members of")
    assert large.all("li.governing") == [large.one("#policy-1")]
    assert deletion.text("#preview-result").startswith("Policy 2, deletions, governs it: 1 approval from any approver")
    assert small.text("#preview-result").startswith("No policy matches: the project's default governs it.")
    assert small.all("li.governing") == []
    # What an action opening now is given.
    sessions.ensure(agent="supportAgent", session_id="refund-1")
    opened = {
        amount: client_actions.open_action(
            "refund-1", call_id=f"r{amount}", name="issue_refund", arguments={"amount": amount}
        )[0]
        for amount in (25000, 500)
    }
    assert opened[25000].policy["name"] == "large refunds" and opened[500].policy is None


def test_preview_arguments_must_be_a_json_object(viewer_client, two_policies):
    page = preview(viewer_client, agent="supportAgent", action="issue_refund", arguments="[25000]")

    assert "The arguments must be a JSON object" in page.text("#preview .errorlist")
    assert page.all("#preview-result") == []


def test_a_waiting_action_keeps_the_policy_it_opened_under_when_the_page_deletes_it(admin_client, two_policies):
    sessions.ensure(agent="supportAgent", session_id="refund-1")
    client_actions.open_action("refund-1", call_id="r1", name="issue_refund", arguments={"amount": 25000})

    press(admin_client, admin_client.get(URL), "large refunds", "Delete")

    assert names() == ["deletions"]
    assert client_actions.get("refund-1", "r1").policy["name"] == "large refunds"


def test_changes_are_audited_as_the_apis_put_is(admin_client, two_policies):
    press(admin_client, admin_client.get(URL), "deletions", "Move up")
    admin_key = ApiKey.issue("ops", "admin")[1]
    assert ApiClient(admin_key).put("policies", {"items": [ANY_DELETE]}).status_code == 200

    rows = list(AuditEntry.objects.filter(action="policies.set").exclude(actor="tests").order_by("pk"))

    assert [(row.actor, row.target) for row in rows] == [
        ("ada", "deletions, large refunds"),
        ("api key: ops", "deletions"),
    ]
    assert [policy["name"] for policy in rows[0].details["items"]] == ["deletions", "large refunds"]
    assert rows[1].details["items"] == [policies.check(ANY_DELETE)]

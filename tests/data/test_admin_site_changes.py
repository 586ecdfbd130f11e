"""Groups and members changed on the admin site go through the same rules as the API and the settings page,
and land in the audit log the same way (docs/data.md, "The audit log"); a group a policy names cannot be
deleted anywhere (docs/projects.md, "Groups")."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from historyhub.approvals import policies
from historyhub.audit.models import AuditEntry
from historyhub.projects import administration
from historyhub.projects.models import Group, Membership, Project, Role
from tests.support.actors import make_member
from tests.support.html import parse

PROJECT_CHANGE = reverse("admin:projects_project_change", args=["default"])
GROUP_ADD = reverse("admin:projects_group_add")


def recorded(*actions):
    """(actor, action, target, details) of the audit rows with these actions, oldest first."""
    rows = AuditEntry.objects.filter(action__in=actions).order_by("pk")
    return [(row.actor, row.action, row.target, row.details) for row in rows]


@pytest.fixture
def project(db):
    return Project.objects.get(pk="default")


@pytest.fixture
def finance(project):
    make_member("ben", Role.APPROVER)
    make_member("cy", Role.APPROVER)
    return administration.put_group(project, "finance", ["ben"], actor="setup")


@pytest.fixture
def named_by_a_policy(project, finance):
    policy = {"name": "big refunds", "actions": ["issue_refund"], "approverGroups": ["finance"]}
    policies.replace(project.pk, [policy], actor="setup")
    return finance


def saved(client, url, form_id, **fields):
    """Submit the admin form at ``url`` as it reads, with ``fields`` ({name: [values]}) changed."""
    form = parse(client.get(url)).one(f"form#{form_id}")
    return client.post(url, {**form.submitted(), **fields})


def test_a_group_added_and_changed_on_the_admin_site_is_in_the_audit_log(operator, project):
    make_member("ben", Role.APPROVER)
    make_member("cy", Role.APPROVER)
    ben, cy = (User.objects.get(username=name).pk for name in ("ben", "cy"))
    added = saved(operator, GROUP_ADD, "group_form", project=["default"], name=["finance"], members=[ben])
    assert added.status_code == 302
    group = Group.objects.get(project=project, name="finance")
    change = reverse("admin:projects_group_change", args=[group.pk])
    assert saved(operator, change, "group_form", members=[ben, cy]).status_code == 302

    assert sorted(group.members.values_list("username", flat=True)) == ["ben", "cy"]
    assert recorded("group.set") == [
        ("root", "group.set", "finance", {"members": ["ben"]}),
        ("root", "group.set", "finance", {"members": ["ben", "cy"]}),
    ]


def test_the_admin_site_keeps_a_groups_name_once_made(operator, finance):
    change = reverse("admin:projects_group_change", args=[finance.pk])
    page = parse(operator.get(change))
    assert not page.all("form#group_form input[name=name]")
    assert page.text("form#group_form .field-name .readonly") == "finance"


def test_a_group_name_the_api_refuses_is_refused_on_the_admin_site(operator, project):
    response = saved(operator, GROUP_ADD, "group_form", project=["default"], name=["a/b"])
    assert response.status_code == 200
    assert "no leading or trailing spaces and no '/'" in parse(response).text(".errorlist")
    assert not Group.objects.exists() and not recorded("group.set")


def test_a_group_deleted_on_the_admin_site_is_in_the_audit_log(operator, finance):
    delete = reverse("admin:projects_group_delete", args=[finance.pk])
    assert operator.post(delete, {"post": "yes"}).status_code == 302
    assert not Group.objects.exists()
    assert recorded("group.deleted") == [("root", "group.deleted", "finance", {})]


def test_the_admin_site_names_the_policy_and_deletes_nothing(operator, named_by_a_policy):
    delete = reverse("admin:projects_group_delete", args=[named_by_a_policy.pk])
    page = operator.get(delete)
    assert "Policy: big refunds (names the group finance)" in parse(page).text("#content")
    operator.post(delete, {"post": "yes"})
    listing = reverse("admin:projects_group_changelist")
    operator.post(listing, {"action": "delete_selected", "_selected_action": [named_by_a_policy.pk], "post": "yes"})
    assert Group.objects.filter(pk=named_by_a_policy.pk).exists()
    assert not recorded("group.deleted")


def test_the_api_refuses_to_delete_a_group_a_policy_names(project, named_by_a_policy, admin_api):
    response = admin_api.delete("groups/finance")
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "decision_not_allowed",
        "message": "The policy 'big refunds' names the group 'finance'; change the policy first.",
    }
    assert Group.objects.filter(name="finance").exists() and not recorded("group.deleted")
    # Once no policy names it, it goes.
    policies.replace(project.pk, [], actor="setup")
    assert admin_api.delete("groups/finance").status_code == 204


def test_members_joined_changed_and_removed_on_the_admin_site_are_in_the_audit_log(operator, project):
    make_member("ben", Role.VIEWER)
    User.objects.create_user("cy")
    ben = Membership.objects.get(user__username="ben")
    form = parse(operator.get(PROJECT_CHANGE)).one("form#project_form")
    data = form.submitted()
    rows = int(data["memberships-INITIAL_FORMS"][0])
    data[f"memberships-{rows - 1}-role"] = [Role.APPROVER]
    data[f"memberships-{rows}-user"] = [User.objects.get(username="cy").pk]
    data[f"memberships-{rows}-role"] = [Role.VIEWER]
    assert data[f"memberships-{rows - 1}-id"] == [str(ben.pk)]
    assert operator.post(PROJECT_CHANGE, data).status_code == 302

    data = parse(operator.get(PROJECT_CHANGE)).one("form#project_form").submitted()
    cy = Membership.objects.get(user__username="cy")
    row = next(name for name, values in data.items() if name.endswith("-id") and values == [str(cy.pk)])
    data[row.replace("-id", "-DELETE")] = ["on"]
    assert operator.post(PROJECT_CHANGE, data).status_code == 302

    assert Membership.objects.get(user__username="ben").role == Role.APPROVER
    assert not Membership.objects.filter(user__username="cy").exists()
    assert recorded("member.set", "member.removed") == [
        ("root", "member.set", "ben", {"role": "approver"}),
        ("root", "member.set", "cy", {"role": "viewer"}),
        ("root", "member.removed", "cy", {}),
    ]

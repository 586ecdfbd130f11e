"""Policies edited in the admin are checked by the API's rule: an unknown group is refused, nothing saved."""

from django.urls import reverse

from historyhub.approvals.models import Policy
from historyhub.audit.models import AuditEntry
from historyhub.projects.models import Group

FORM = {
    "project": "default",
    "position": 0,
    "name": "large refunds",
    "agents_json": '["*"]',
    "actions_json": '["issue_refund"]',
    "when_json": '[{"argument": "amount", "op": "gt", "value": 10000}]',
    "approver_groups_json": '["finance"]',
    "escalate_to_json": "[]",
    "required_approvals": 2,
}


def test_the_admin_saves_a_valid_policy_and_refuses_an_unknown_group(admin_client):
    url = reverse("admin:approvals_policy_add")

    refused = admin_client.post(url, FORM)
    assert refused.status_code == 200 and "No group named &#x27;finance&#x27;" in refused.content.decode()
    assert not Policy.objects.exists()

    Group.objects.create(project_id="default", name="finance")
    assert admin_client.post(url, FORM).status_code == 302
    assert Policy.objects.get().as_dict()["when"] == [{"argument": "amount", "op": "gt", "value": 10000}]


def test_every_change_in_the_admin_is_audited_with_the_list_it_leaves(admin_client, admin_user):
    Group.objects.create(project_id="default", name="finance")
    admin_client.post(reverse("admin:approvals_policy_add"), FORM)
    policy = Policy.objects.get()
    admin_client.post(reverse("admin:approvals_policy_delete", args=[policy.pk]), {"post": "yes"})

    rows = AuditEntry.objects.filter(project_id="default", action="policies.set").order_by("pk")
    assert [(row.actor, row.target, row.details["items"]) for row in rows] == [
        (admin_user.username, "large refunds", [policy.as_dict()]),
        (admin_user.username, "", []),
    ]
    assert not Policy.objects.exists()

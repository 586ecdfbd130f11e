"""A project's settings page, for its admins: name and retention, members, groups and keys (docs/projects.md)."""

import pytest
from django.test import Client
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import policies
from historyhub.projects import administration
from historyhub.projects.models import Group, Membership, Project, Role
from tests.support.actors import make_member, post
from tests.support.html import parse

URL = reverse("dashboard:settings", args=["default"])


@pytest.fixture
def admin_client(db):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_member("ada", Role.ADMIN))
    return client


def test_only_the_projects_admins_see_it(approver_client, viewer_client):
    for client in (approver_client, viewer_client):
        response = client.get(URL)
        assert response.status_code == 403


def test_an_admin_changes_the_name_and_retention(admin_client):
    response = post(admin_client, URL, {"action": "project", "name": "Support", "retention_days": "30"})
    assert response.status_code == 302
    project = Project.objects.get(pk="default")
    assert (project.name, project.retention_days) == ("Support", 30)
    refused = post(admin_client, URL, {"action": "project", "name": "Support", "retention_days": "0"})
    assert refused.status_code == 422 and Project.objects.get(pk="default").retention_days == 30


def test_members_and_groups_are_managed_and_a_group_holds_members_only(admin_client, django_user_model):
    django_user_model.objects.create_user("ben")
    assert post(admin_client, URL, {"action": "member", "username": "ben", "role": "approver"}).status_code == 302
    assert Membership.objects.get(user__username="ben").role == Role.APPROVER
    django_user_model.objects.create_user("outsider")
    refused = post(admin_client, URL, {"action": "group", "name": "finance", "members": "ben outsider"})
    assert refused.status_code == 422 and "'outsider' is not a member of this project." in parse(refused).text()
    assert not Group.objects.exists()
    assert post(admin_client, URL, {"action": "group", "name": "finance", "members": "ben, ada"}).status_code == 302
    assert sorted(Group.objects.get(name="finance").members.values_list("username", flat=True)) == ["ada", "ben"]
    assert post(admin_client, URL, {"action": "remove_member", "username": "ben"}).status_code == 302
    assert list(Group.objects.get(name="finance").members.values_list("username", flat=True)) == ["ada"]


def test_a_new_key_is_shown_on_its_answer_only_and_revoked_keys_stop_working(admin_client):
    response = post(admin_client, URL, {"action": "key", "name": "staging agent", "scopes": ["write"]})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    key = parse(response).text("#new-key")
    api_key = ApiKey.authenticate(key)
    assert api_key.project_id == "default" and api_key.scopes == "write"
    assert key not in admin_client.get(URL).content.decode()
    assert post(admin_client, URL, {"action": "revoke_key", "key": str(api_key.pk)}).status_code == 302
    assert ApiKey.authenticate(key) is None


def test_an_admin_of_one_project_cannot_revoke_another_projects_key(admin_client):
    other = administration.create_project("finance")
    api_key, key = ApiKey.issue("finance agent", "write", project=other)
    response = post(admin_client, URL, {"action": "revoke_key", "key": str(api_key.pk)})
    assert response.status_code == 422 and ApiKey.authenticate(key) is not None
    assert parse(response).text("[role=alert]") == "There is no such active key in this project."


def test_a_group_a_policy_names_is_not_deleted_and_the_page_says_why(admin_client):
    project = Project.objects.get(pk="default")
    administration.put_group(project, "finance", ["ada"], actor="setup")
    policies.replace(project.pk, [{"name": "big refunds", "approverGroups": ["finance"]}], actor="setup")
    response = post(admin_client, URL, {"action": "delete_group", "name": "finance"})
    assert response.status_code == 422 and Group.objects.filter(name="finance").exists()
    assert parse(response).text("[role=alert]") == (
        "The policy 'big refunds' names the group 'finance'; change the policy first."
    )

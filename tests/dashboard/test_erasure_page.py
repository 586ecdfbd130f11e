"""Erasure on the dashboard: a project admin counts the sessions first, then erases them on a confirmed POST."""

import pytest
from django.urls import reverse

from historyhub.audit.models import AuditEntry
from historyhub.history import sessions
from historyhub.history.models import Session
from historyhub.projects.models import Project, Role
from tests.support.actors import logged_in, make_member, post
from tests.support.html import parse

URL = reverse("dashboard:erasure", kwargs={"project_id": "default"})


@pytest.fixture
def admin_client(db):
    """The dashboard as ``ada``, an admin of the default project."""
    return logged_in(make_member("ada", Role.ADMIN))


@pytest.fixture
def customers(db):
    Project.objects.create(id="acme", name="Acme")
    for number in range(3):
        sessions.ensure(agent="a", session_id=f"ana-{number}", metadata={"customerId": "ana"})
    sessions.ensure(agent="a", session_id="child", parent_session_id="ana-0", parent_call_id="c")
    sessions.ensure(agent="a", session_id="bob", metadata={"customerId": "bob"})
    sessions.ensure(agent="a", project="acme", session_id="ana-0", metadata={"customerId": "ana"})


def test_the_count_comes_first_and_deletes_nothing(admin_client, customers):
    response = admin_client.get(URL, {"metadata_key": "customerId", "metadata_value": "ana"})

    assert response.status_code == 200
    assert parse(response).text("#confirm-title") == "4 sessions will be deleted"
    assert Session.objects.count() == 6


def test_a_confirmed_post_erases_them_and_the_audit_row_keeps_a_hash_not_the_value(admin_client, customers):
    response = post(admin_client, URL, {"metadata_key": "customerId", "metadata_value": "ana"})

    assert response.status_code == 302
    assert sorted(Session.objects.values_list("pk", flat=True)) == ["acme/ana-0", "bob"]
    entry = AuditEntry.objects.get(action="erasure")
    assert (entry.project_id, entry.actor, entry.target) == ("default", "ada", "customerId")
    assert entry.details["sessionsDeleted"] == 4
    assert len(entry.details["valueHash"]) == 64
    assert "ana" not in entry.details_json


def test_viewers_and_approvers_may_not_erase(db, customers):
    for username, role in (("vic", Role.VIEWER), ("abe", Role.APPROVER)):
        client = logged_in(make_member(username, role))
        assert client.get(URL, {"metadata_key": "customerId", "metadata_value": "ana"}).status_code == 403
        assert post(client, URL, {"metadata_key": "customerId", "metadata_value": "ana"}).status_code == 403
    assert Session.objects.count() == 6


def test_a_post_without_the_csrf_token_is_refused(admin_client, customers):
    response = admin_client.post(URL, {"metadata_key": "customerId", "metadata_value": "ana"})

    assert response.status_code == 403
    assert Session.objects.count() == 6


def test_bad_input_is_refused_and_changes_nothing(admin_client, customers):
    response = post(admin_client, URL, {"metadata_key": "", "metadata_value": "ana"})

    assert response.status_code == 422
    assert Session.objects.count() == 6
    assert not AuditEntry.objects.exists()

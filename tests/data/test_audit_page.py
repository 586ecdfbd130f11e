"""The audit log page: project admins read and filter it and download it as CSV; nobody else sees it."""

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from historyhub.data import audit
from historyhub.data.models import AuditEntry
from historyhub.projects import administration
from historyhub.projects.models import Role
from tests.support.actors import logged_in, make_member
from tests.support.html import parse

URL = reverse("dashboard:audit", kwargs={"project_id": "default"})


@pytest.fixture
def recorded(db):
    audit.record("default", "ada", audit.Action.EXPORT)
    audit.record("default", "ben", audit.Action.ERASURE, "customerId", valueHash="abc")
    old = audit.record("default", "ada", audit.Action.MEMBER_SET, "=HYPERLINK(1)", role="viewer")
    AuditEntry.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=10))
    administration.create_project("acme", "Acme")
    audit.record("acme", "ada", audit.Action.EXPORT, "acme's own")


def shown(response):
    return [row.text("td:nth-child(3)") for row in parse(response).all("#audit-rows tbody tr")]


def test_admins_see_the_projects_rows_newest_first(admin_client, recorded):
    response = admin_client.get(URL)

    assert response.status_code == 200
    assert shown(response) == ["erasure", "export", "member.set"]


def test_filters_by_actor_action_and_days(admin_client, recorded):
    assert shown(admin_client.get(URL, {"actor": "ada"})) == ["export", "member.set"]
    assert shown(admin_client.get(URL, {"action": "erasure"})) == ["erasure"]
    today = timezone.localdate().isoformat()
    assert shown(admin_client.get(URL, {"since": today})) == ["erasure", "export"]
    ten_days_ago = (timezone.localdate() - timedelta(days=10)).isoformat()
    assert shown(admin_client.get(URL, {"until": ten_days_ago})) == ["member.set"]
    assert admin_client.get(URL, {"since": "yesterday"}).status_code == 400


def test_the_csv_holds_the_filtered_rows_with_formulas_defused(admin_client, recorded):
    response = admin_client.get(URL, {"actor": "ada", "format": "csv"})

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    table = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert table[0] == ["at", "actor", "action", "target", "details"]
    assert [row[2:4] for row in table[1:]] == [["export", ""], ["member.set", "'=HYPERLINK(1)"]]


def test_viewers_and_approvers_get_the_403_page(db, recorded):
    for username, role in (("vic", Role.VIEWER), ("abe", Role.APPROVER)):
        assert logged_in(make_member(username, role)).get(URL).status_code == 403

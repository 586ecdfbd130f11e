"""A change of a project's retention is in the audit log with the value before and after, whichever way it was
made: PATCH /api/v1/project with an admin key, the settings page, the admin site."""

import pytest
from django.urls import reverse

from historyhub.audit.models import AuditEntry
from historyhub.projects import administration
from historyhub.projects.models import Project
from tests.support.actors import post
from tests.support.html import parse

SETTINGS = reverse("dashboard:settings", args=["default"])
ADMIN_CHANGE = reverse("admin:projects_project_change", args=["default"])


def changes():
    """(actor, target, details) of every project.changed row, oldest first."""
    rows = AuditEntry.objects.filter(action="project.changed").order_by("pk")
    return [(row.actor, row.target, row.details) for row in rows]


def retention():
    return Project.objects.get(pk="default").retention_days


@pytest.fixture
def kept_30_days(db):
    Project.objects.filter(pk="default").update(retention_days=30)


def admin_save(client, **fields):
    """Save the admin's change form of the default project as it reads, with ``fields`` changed."""
    form = parse(client.get(ADMIN_CHANGE)).one("form#project_form")
    data = {**form.submitted(), **{name: [value] for name, value in fields.items()}}
    return client.post(ADMIN_CHANGE, data)


def test_a_patch_records_the_retention_before_and_after(kept_30_days, admin_api):
    assert admin_api.patch("project", {"retentionDays": 7}).status_code == 200
    assert admin_api.patch("project", {"retentionDays": None}).status_code == 200

    assert changes() == [
        ("api key: tests (admin)", "default", {"retentionDays": {"old": 30, "new": 7}}),
        ("api key: tests (admin)", "default", {"retentionDays": {"old": 7, "new": None}}),
    ]
    assert retention() is None


def test_a_patch_that_changes_nothing_or_is_refused_records_nothing(kept_30_days, admin_api):
    assert admin_api.patch("project", {"retentionDays": 30}).status_code == 200
    assert admin_api.patch("project", {"retentionDays": 0}).status_code == 400

    assert changes() == []
    assert retention() == 30


def test_the_settings_page_records_the_retention_before_and_after_and_only_what_changed(kept_30_days, admin_client):
    name = Project.objects.get(pk="default").name
    saved = post(admin_client, SETTINGS, {"action": "project", "name": name, "retention_days": "90"})
    assert saved.status_code == 302
    again = post(admin_client, SETTINGS, {"action": "project", "name": name, "retention_days": "90"})
    assert again.status_code == 302
    forever = post(admin_client, SETTINGS, {"action": "project", "name": name, "retention_days": ""})
    assert forever.status_code == 302

    assert changes() == [
        ("ada", "default", {"retentionDays": {"old": 30, "new": 90}}),
        ("ada", "default", {"retentionDays": {"old": 90, "new": None}}),
    ]


def test_the_admin_site_records_the_retention_before_and_after(kept_30_days, operator):
    response = admin_save(operator, retention_days="14")

    assert response.status_code == 302, parse(response).text(".errornote, .errorlist")
    assert retention() == 14
    assert changes() == [("root", "default", {"retentionDays": {"old": 30, "new": 14}})]


def test_the_admin_site_refuses_what_the_api_refuses_and_records_nothing(kept_30_days, operator):
    response = admin_save(operator, retention_days=str(administration.MAX_RETENTION_DAYS + 1))

    assert response.status_code == 200
    assert "retentionDays must be a whole number of days" in parse(response).text(".errorlist")
    assert retention() == 30
    assert changes() == []


def test_a_project_the_admin_site_adds_is_not_a_change(operator):
    response = operator.post(
        reverse("admin:projects_project_add"),
        {"id": "acme", "name": "Acme", "retention_days": "10", **empty_inline("memberships")},
    )

    assert response.status_code == 302, parse(response).text(".errornote, .errorlist")
    assert Project.objects.get(pk="acme").retention_days == 10
    assert changes() == []


def empty_inline(prefix):
    return {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}

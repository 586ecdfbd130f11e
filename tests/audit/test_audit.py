"""An audit row for each kind of change made outside the agent protocol, in the project it changed."""

from datetime import timedelta

import pytest
from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.audit.models import AuditEntry
from historyhub.history import sessions
from historyhub.history.models import Session
from historyhub.lib.errors import NotFound
from historyhub.projects import administration
from historyhub.projects.models import Project, Role
from historyhub.upkeep import retention
from tests.support.actors import make_member
from tests.support.runs import decide


def rows():
    return list(AuditEntry.objects.order_by("pk").values_list("project_id", "actor", "action", "target"))


def test_a_decision_by_a_key_is_recorded_with_its_outcome(api):
    api.post("sessions", {"sessionId": "s", "agent": "a"})
    api.post("sessions/s/client-actions", {"callId": "c1", "name": "refund", "arguments": {}})

    decide("s", "c1", "reject")

    entry = AuditEntry.objects.get(action="decision")
    assert (entry.project_id, entry.actor, entry.target) == ("default", "api key: people", "s / c1")
    assert entry.details == {"decision": "reject", "comment": "", "edited": False}


def test_project_member_group_and_key_changes_are_recorded_with_who_made_them(db, django_user_model):
    project = Project.objects.get(pk="default")
    make_member("ben", Role.VIEWER)

    administration.update_project(project, actor="ada", retention_days=30)
    administration.set_member(project, "ben", Role.APPROVER, actor="ada")
    administration.put_group(project, "finance", ["ben"], actor="ada")
    administration.delete_group(project, "finance", actor="ada")
    api_key, _ = administration.issue_key(project, "ci", "read", actor="ada")
    administration.revoke_key(project, api_key.pk, actor="ada")
    administration.remove_member(project, "ben", actor="ada")

    assert [action for _, _, action, _ in rows()] == [
        "project.changed",
        "member.set",
        "group.set",
        "group.deleted",
        "key.issued",
        "key.revoked",
        "member.removed",
    ]
    assert {actor for _, actor, _, _ in rows()} == {"ada"}
    assert AuditEntry.objects.get(action="project.changed").details == {"retentionDays": {"old": None, "new": 30}}
    assert AuditEntry.objects.get(action="key.issued").details == {"scopes": "read", "prefix": api_key.prefix}


def test_a_refused_change_leaves_no_row(db):
    project = Project.objects.get(pk="default")

    with pytest.raises(NotFound):
        administration.delete_group(project, "nobody", actor="ada")

    assert rows() == []


def test_an_admin_keys_patch_of_the_retention_is_recorded(admin_api):
    admin_api.patch("project", {"retentionDays": 7})

    assert rows()[-1] == ("default", "api key: tests (admin)", "project.changed", "default")


def test_deleting_a_session_over_the_api_and_a_retention_run_are_recorded(api):
    api.post("sessions", {"sessionId": "s", "agent": "a"})
    api.post("sessions", {"sessionId": "old", "agent": "a"})
    api.delete("sessions/s")
    Project.objects.filter(pk="default").update(retention_days=1)
    Session.objects.filter(pk="old").update(updated_at=timezone.now() - timedelta(days=2))

    retention.sweep()

    assert rows() == [
        ("default", "api key: tests (write)", "session.deleted", "s"),
        ("default", "retention", "retention.deleted", ""),
    ]
    assert AuditEntry.objects.get(action="retention.deleted").details == {"retentionDays": 1, "sessionIds": ["old"]}


def test_another_projects_changes_are_its_own(db):
    acme = administration.create_project("acme", "Acme")
    sessions.ensure(agent="a", project="acme", session_id="s")

    sessions.delete("acme/s", actor="ada")
    administration.update_project(acme, actor="ada", name="Acme Inc")

    assert {project for project, _, _, _ in rows()} == {"acme"}


def test_old_rows_are_pruned_after_the_audit_retention(db, settings):
    settings.HISTORYHUB_AUDIT_RETENTION_DAYS = 365
    old = audit_log.record("default", "ada", "export")
    AuditEntry.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=366))
    audit_log.record("default", "ada", "export")

    assert audit_log.prune() == 1
    assert AuditEntry.objects.count() == 1

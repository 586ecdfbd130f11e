from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from historyhub.data.models import AuditEntry
from historyhub.projects.models import Project
from tests.data.sessions import full_session, write_client
from tests.data.test_export import export_lines


def test_an_operator_moves_a_project_with_export_and_import(api, tmp_path, db):
    full_session(api, "s1", {"customerId": "ana"})
    api.post("sessions", {"sessionId": "s2", "agent": "b"})
    Project.objects.create(id="moved", name="Moved")
    path = tmp_path / "default.jsonl"

    call_command("export", project="default", output=str(path))
    out = StringIO()
    call_command("import", str(path), project="moved", stdout=out)

    assert out.getvalue().strip() == "Imported 2 sessions into moved."
    assert export_lines(write_client("moved")) == export_lines(api)
    assert path.read_text().count("\n") == 2
    by_operator = AuditEntry.objects.filter(actor="operator (manage.py)")
    assert sorted(by_operator.values_list("project_id", "action")) == [
        ("default", "export"),
        ("moved", "import"),
    ]


def test_an_import_into_a_project_that_holds_the_id_changes_nothing(api, tmp_path):
    api.post("sessions", {"sessionId": "s1", "agent": "a"})
    path = tmp_path / "default.jsonl"
    call_command("export", project="default", output=str(path))

    with pytest.raises(CommandError, match="'s1' exists already"):
        call_command("import", str(path), project="default")
    assert not AuditEntry.objects.filter(action="import").exists()


def test_an_unknown_project_is_refused(db, tmp_path):
    with pytest.raises(CommandError, match="There is no project 'nowhere'"):
        call_command("export", project="nowhere", output=str(tmp_path / "x"))

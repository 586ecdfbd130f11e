import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from historyhub.audit.models import AuditEntry
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

    assert out.getvalue().strip() == "Imported 2 sessions, 2 items, 1 client action into moved."
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


def test_an_export_says_how_far_it_has_come_on_standard_error_and_the_counts_at_the_end(api, tmp_path):
    for number in (1, 2, 3):
        api.post("sessions", {"sessionId": f"s{number}", "agent": "a"})
        api.post(f"sessions/s{number}/items", {"items": [{"role": "user", "content": "hi"}]})
    out, err = StringIO(), StringIO()

    call_command("export", project="default", progress_every=2, stdout=out, stderr=err)

    # Standard output is the export alone; a line every 2 sessions and the counts go to standard error.
    assert out.getvalue().count("\n") == 3
    assert all(line.startswith('{"session":') for line in out.getvalue().splitlines())
    assert err.getvalue().splitlines() == [
        "Exporting: 2 sessions, 2 items, 0 client actions so far",
        "Exported 3 sessions, 3 items, 0 client actions of default.",
    ]


def test_an_import_says_how_far_it_has_come_and_what_the_import_rules_left_out(api, decide_api, tmp_path):
    for number in (1, 2, 3):
        api.post("sessions", {"sessionId": f"s{number}", "agent": "a"})
    path = tmp_path / "default.jsonl"
    call_command("export", project="default", output=str(path), stderr=StringIO())
    # A vote on an action still waiting (the source's policy wanted two): not kept, and the end says so.
    lines = path.read_text().splitlines()
    line = json.loads(lines[0])
    line["clientActions"] = [
        {
            "callId": "c1",
            "name": "refund",
            "arguments": {},
            "status": "waiting",
            "createdAt": line["session"]["createdAt"],
            "votes": [{"by": "ann", "decision": "approve", "at": line["session"]["createdAt"]}],
        }
    ]
    path.write_text("\n".join([json.dumps(line), *lines[1:]]) + "\n")
    Project.objects.create(id="moved", name="Moved")
    out, err = StringIO(), StringIO()

    call_command("import", str(path), project="moved", progress_every=2, stdout=out, stderr=err)

    assert err.getvalue().splitlines() == ["Importing: 2 sessions, 0 items, 1 client action so far"]
    assert out.getvalue().splitlines() == [
        "Imported 3 sessions, 0 items, 1 client action into moved.",
        "1 vote on actions still waiting not kept: a vote needs a decider of this installation, and those actions "
        "wait for this project's deciders.",
    ]


def test_a_refused_import_says_which_line_and_that_nothing_was_imported(api, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"session": {}, "items": [], "clientActions": [], "runs": []}\n')

    with pytest.raises(CommandError, match=r"^line 1: .*Nothing was imported\.$"):
        call_command("import", str(path), project="default", stderr=StringIO())
    assert not AuditEntry.objects.filter(action="import").exists()

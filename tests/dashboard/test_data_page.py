"""The data page (docs/data.md, "On the dashboard"): a project admin exports with the API's filters the very file
the API gives, and imports such a file under the API's import rules, its progress and result on the page; a bad
or too large file is refused saying why, and nothing changes."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from historyhub.audit.models import AuditEntry
from historyhub.dashboard import data_page
from historyhub.history.models import ClientAction, Session
from historyhub.lib.session_keys import session_key
from historyhub.projects.models import Role
from tests.data.sessions import full_session
from tests.data.test_export import export_lines
from tests.support.actors import csrf_token, logged_in, make_member
from tests.support.html import parse

PAGE = reverse("dashboard:data", args=["default"])


@pytest.fixture
def admin(db):
    return logged_in(make_member("ada", Role.ADMIN))


def post(client, data):
    return client.post(PAGE, data, headers={"X-CSRFToken": csrf_token(client)})


def streamed(response):
    return b"".join(response.streaming_content).decode()


def exported_file(api, tmp_path=None):
    """The API's export of the default project as one file's text."""
    return "".join(json.dumps(line) + "\n" for line in export_lines(api))


def upload(text, name="export.jsonl"):
    return SimpleUploadedFile(name, text.encode() if isinstance(text, str) else text, "application/x-ndjson")


def emptied(api, *session_ids):
    for session_id in session_ids:
        assert api.delete(f"sessions/{session_id}").status_code == 204


def test_only_the_projects_admins_open_the_page(db):
    approver = logged_in(make_member("abe", Role.APPROVER))
    assert approver.get(PAGE).status_code == 403
    assert post(approver, {"action": "export"}).status_code == 403


def test_the_settings_page_leads_to_it(admin):
    page = parse(admin.get(reverse("dashboard:settings", args=["default"])))
    assert page.link("Export and import")["href"] == PAGE


def test_an_export_with_the_apis_filters_downloads_the_apis_file_and_is_audited(admin, api):
    full_session(api, "s1")
    api.post("sessions", {"sessionId": "s2", "agent": "billing"})

    answer = post(admin, {"action": "export", "agent": "support", "updated_since": "2000-01-01T00:00:00Z"})

    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/x-ndjson"
    assert answer["Content-Disposition"].startswith('attachment; filename="default-')
    text = streamed(answer)
    assert [json.loads(line) for line in text.splitlines()] == export_lines(api, agent="support")
    entry = AuditEntry.objects.filter(action="export", actor="ada").get()
    assert entry.details == {"agent": "support", "updatedSince": "2000-01-01T00:00:00Z"}


def test_a_bad_filter_says_why_and_downloads_nothing(admin):
    answer = post(admin, {"action": "export", "updated_since": "yesterday"})

    assert answer.status_code == 400
    assert "updatedSince must be an ISO 8601 time with a time zone" in parse(answer).text("#export-form")
    assert not AuditEntry.objects.filter(action="export").exists()


def test_a_session_id_outside_the_apis_rule_is_said_next_to_its_field(admin):
    answer = post(admin, {"action": "export", "session_id": "no/slashes"})

    assert answer.status_code == 400
    assert "String should match pattern" in parse(answer).text("#export-form")
    assert not AuditEntry.objects.filter(action="export").exists()


def test_an_export_needs_the_csrf_token(admin):
    assert admin.post(PAGE, {"action": "export"}).status_code == 403


def test_an_import_brings_the_sessions_back_says_what_it_did_and_is_audited(admin, api, decide_api):
    full_session(api, "s1")
    full_session(api, "s2")
    decided = {"decision": "approve", "comment": "fine"}
    assert decide_api.post("sessions/s2/client-actions/call-1/decision", decided).status_code == 200
    before = export_lines(api)
    text = exported_file(api)
    emptied(api, "s1", "s2")

    answer = post(admin, {"action": "import", "file": upload(text)})

    assert answer.status_code == 200
    page = parse(streamed(answer))
    result = page.one("#import-result")
    assert result.text().startswith("Imported 2 sessions, 4 items, 2 client actions.")
    assert "1 resolved action kept as its record, marked imported, never decided here (1 vote kept as the record)" in (
        result.text()
    )
    assert "1 action waiting for this project's deciders, under its policies." in result.text()
    assert "2 parked runs." in result.text()
    after = export_lines(api)
    assert [line["session"]["sessionId"] for line in after] == ["s1", "s2"]
    assert ClientAction.objects.get(session_id=session_key("default", "s2")).imported
    assert before[0] == after[0]
    entry = AuditEntry.objects.filter(action="import").get()
    assert (entry.actor, entry.details) == ("ada", {"sessionsImported": 2})


def test_progress_lines_come_before_the_result_and_only_the_last_one_is_shown(admin, api, monkeypatch):
    for number in (1, 2, 3):
        api.post("sessions", {"sessionId": f"s{number}", "agent": "a"})
    text = exported_file(api)
    emptied(api, "s1", "s2", "s3")
    monkeypatch.setattr(data_page, "PROGRESS_EVERY", 1)

    page = parse(streamed(post(admin, {"action": "import", "file": upload(text)})))

    box = page.one("#import-progress")
    lines = [child.text() for child in box.children]
    assert lines[0] == "Reading the file…"
    assert lines[1:4] == [
        f"Importing: {count} session{'s' if count > 1 else ''}, 0 items, 0 client actions read so far (line {count}); "
        "nothing is kept until the last line is in."
        for count in (1, 2, 3)
    ]
    # The result is the box's last child: the stylesheet shows only that (.import-progress > :not(:last-child)).
    assert box.children[-1]["id"] == "import-result"


def test_votes_on_an_action_still_waiting_are_named_as_not_kept(admin, api):
    api.post("sessions", {"sessionId": "s1", "agent": "a"})
    [line] = export_lines(api)
    at = line["session"]["createdAt"]
    line["clientActions"] = [
        {
            "callId": "c1",
            "name": "refund",
            "arguments": {},
            "status": "waiting",
            "createdAt": at,
            "votes": [{"by": "someone elsewhere", "decision": "approve", "at": at}],
        }
    ]
    emptied(api, "s1")

    page = parse(streamed(post(admin, {"action": "import", "file": upload(json.dumps(line) + "\n")})))

    assert page.text(".import-not-kept") == (
        "1 vote on actions still waiting not kept: a vote needs a decider of this installation, and those actions "
        "wait for this project's deciders."
    )
    assert not ClientAction.objects.get(session_id=session_key("default", "s1")).votes.exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("not json\n", "line 2 is not JSON"),
        ('{"session": {}}\n', "line 2: a line must be an object with exactly session, items, clientActions and runs."),
        (b"\xff\xfe\n", "line 2 is not UTF-8 text."),
    ],
)
def test_a_bad_file_is_refused_naming_the_line_and_nothing_changes(admin, api, content, said):
    api.post("sessions", {"sessionId": "s1", "agent": "a"})
    first = exported_file(api)
    emptied(api, "s1")
    body = first.encode() + (content if isinstance(content, bytes) else content.encode())

    page = parse(streamed(post(admin, {"action": "import", "file": upload(body)})))

    refusal = page.one("#import-result")
    assert refusal["role"] == "alert"
    assert said in refusal.text()
    assert refusal.text().endswith("Nothing was imported.")
    assert not Session.objects.exists()
    assert not AuditEntry.objects.filter(action="import").exists()


def test_a_session_the_project_holds_is_refused_by_name(admin, api):
    api.post("sessions", {"sessionId": "s1", "agent": "a"})

    page = parse(streamed(post(admin, {"action": "import", "file": upload(exported_file(api))})))

    assert page.text("#import-result") == (
        "The file was refused. Session 's1' exists already in this project: nothing was imported."
    )


def test_a_file_over_the_limit_is_refused_before_anything_is_read(admin, api, settings):
    api.post("sessions", {"sessionId": "s1", "agent": "a"})
    text = exported_file(api)
    emptied(api, "s1")
    settings.HISTORYHUB_MAX_BODY_BYTES = data_page.FORM_OVERHEAD_BYTES + len(text) - 1

    answer = post(admin, {"action": "import", "file": upload(text)})

    assert answer.status_code == 413
    assert "the page takes at most" in parse(answer).text("#import-form [role=alert]")
    assert not Session.objects.exists()


def test_an_import_needs_the_csrf_token(admin):
    assert admin.post(PAGE, {"action": "import", "file": upload("")}).status_code == 403

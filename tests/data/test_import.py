import json

import pytest

from historyhub.data.models import AuditEntry
from historyhub.history.models import Session
from historyhub.projects.models import Project
from tests.data.sessions import full_session, write_client
from tests.data.test_export import export_lines
from tests.support.items import user
from tests.support.readers import assert_error, items_via_api


def post_lines(client, text):
    return client.request("POST", "import", raw=text.encode(), headers={"Content-Type": "application/x-ndjson"})


def as_text(lines):
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture
def acme(db):
    Project.objects.create(id="acme", name="Acme")
    return write_client("acme")


def test_export_then_import_into_an_empty_project_then_export_is_equal_line_for_line(api, acme, decide_api):
    full_session(api, "parent", {"customerId": "ana"})
    api.post("sessions", {"sessionId": "child", "agent": "a", "parentSessionId": "parent", "parentCallId": "call-1"})
    compaction = {"items": [{"type": "compaction", "id": "cmp", "encrypted_content": "x"}]}
    assert api.post("sessions/parent/compaction", compaction).status_code == 200
    api.post("sessions/parent/items", {"items": [user("after the compaction")]})
    api.post("sessions/parent/client-actions", {"callId": "call-2", "name": "refund", "arguments": {"a": 1}})
    decision = {"decision": "approve", "comment": "fine"}
    assert decide_api.post("sessions/parent/client-actions/call-2/decision", decision).status_code == 200
    original = export_lines(api)

    response = post_lines(acme, as_text(original))

    assert response.status_code == 200, response.json()
    assert response.json() == {"imported": 2}
    assert export_lines(acme) == original
    assert AuditEntry.objects.get(action="import").details == {"sessionsImported": 2}
    assert items_via_api(acme, "parent")[-1] == user("after the compaction")


def test_a_session_id_the_project_holds_is_a_409_naming_it_and_nothing_is_imported(api, acme):
    api.post("sessions", {"sessionId": "new-one", "agent": "a"})
    api.post("sessions", {"sessionId": "taken", "agent": "a"})
    acme.post("sessions", {"sessionId": "taken", "agent": "b"})
    lines = as_text(export_lines(api))

    response = post_lines(acme, lines)

    assert_error(response, 409, "session_conflict")
    assert "'taken'" in response.json()["error"]["message"]
    assert list(Session.objects.filter(project="acme").values_list("session_id", flat=True)) == ["taken"]
    assert not AuditEntry.objects.filter(action="import").exists()


@pytest.mark.parametrize(
    "text",
    [
        "not json\n",
        '{"session": {}}\n',
        "[1, 2]\n",
    ],
)
def test_a_bad_line_is_a_400_and_nothing_is_imported(acme, text):
    response = post_lines(acme, text)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert not Session.objects.filter(project="acme").exists()


def test_a_bad_item_on_a_later_line_takes_back_the_earlier_lines(api, acme):
    api.post("sessions", {"sessionId": "first", "agent": "a"})
    api.post("sessions", {"sessionId": "second", "agent": "a"})
    first, second = export_lines(api)
    second["items"] = [{"position": 1, "epoch": 0, "item": "not an object"}]

    response = post_lines(acme, as_text([first, second]))

    assert response.status_code == 400
    assert "line 2" in response.json()["error"]["message"]
    assert not Session.objects.filter(project="acme").exists()


def test_only_json_lines_are_accepted_and_a_read_key_may_not_import(api, read_api):
    assert api.post("import", {"a": 1}).status_code == 400
    assert_error(
        read_api.request("POST", "import", raw=b"", headers={"Content-Type": "application/x-ndjson"}), 403, "forbidden"
    )


def test_an_answered_action_and_its_allowed_responses_come_back_as_exported(api, acme, decide_api):
    api.post("sessions", {"sessionId": "question", "agent": "a"})
    opened = api.post(
        "sessions/question/client-actions",
        {"callId": "q1", "name": "ask", "arguments": {}, "allowedResponses": ["respond", "dismiss"]},
    )
    assert opened.status_code == 201, opened.content
    answer = {"decision": "respond", "response": "Ship it on Monday."}
    assert decide_api.post("sessions/question/client-actions/q1/decision", answer).status_code == 200
    original = export_lines(api)

    assert post_lines(acme, as_text(original)).status_code == 200
    assert export_lines(acme) == original
    action = original[0]["clientActions"][0]
    assert (action["status"], action["response"], action["allowedResponses"]) == (
        "answered",
        "Ship it on Monday.",
        ["respond", "dismiss"],
    )

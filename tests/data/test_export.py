import json

import pytest

from historyhub.audit.models import AuditEntry
from historyhub.projects.models import Project
from tests.data.sessions import full_session, write_client
from tests.support.items import user


def export_lines(api, **params):
    response = api.get("export", **params)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/x-ndjson"
    text = b"".join(response.streaming_content).decode()
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_a_line_holds_the_session_its_whole_log_its_actions_and_runs(api):
    full_session(api, "s1", {"customerId": "ana"})
    compaction = {"items": [{"type": "compaction", "id": "cmp", "encrypted_content": "x"}]}
    assert api.post("sessions/s1/compaction", compaction).status_code == 200
    api.post("sessions/s1/items", {"items": [user("after")]})

    [line] = export_lines(api)

    assert set(line) == {"session", "items", "clientActions", "runs"}
    assert line["session"] == api.get("sessions/s1").json()
    assert [(item["position"], item["epoch"]) for item in line["items"]] == [(1, 0), (2, 0), (4, 1), (5, 1)]
    assert line["items"][0]["item"] == user("hello from s1")
    assert line["items"][3]["item"] == user("after")
    assert line["clientActions"] == [api.get("sessions/s1/client-actions/call-1").json()]
    assert line["runs"] == [api.get("sessions/s1/runs/run-1").json()]


def test_filters_pick_sessions_and_another_projects_sessions_never_show(api, db):
    Project.objects.create(id="acme", name="Acme")
    full_session(write_client("acme"), "theirs")
    api.post("sessions", {"sessionId": "a1", "agent": "support"})
    api.post("sessions", {"sessionId": "b1", "agent": "billing"})

    def ids(**params):
        return [line["session"]["sessionId"] for line in export_lines(api, **params)]

    assert ids() == ["a1", "b1"]
    assert ids(agent="billing") == ["b1"]
    assert ids(sessionId="a1") == ["a1"]
    assert ids(updatedSince="2999-01-01T00:00:00Z") == []
    assert ids(sessionId="theirs") == []


def test_many_sessions_come_in_creation_order_across_chunks(api):
    for number in range(105):
        api.post("sessions", {"sessionId": f"s{number:03}", "agent": "a"})

    assert [line["session"]["sessionId"] for line in export_lines(api)] == [f"s{n:03}" for n in range(105)]


def test_an_export_is_in_the_audit_log(api):
    export_lines(api, agent="support")

    entry = AuditEntry.objects.get(action="export")
    assert (entry.actor, entry.details) == ("api key: tests (write)", {"agent": "support"})


@pytest.mark.parametrize("params", [{"updatedSince": "yesterday"}, {"updatedSince": "2026-01-01T00:00:00"}])
def test_bad_filters_are_a_400(api, params):
    assert api.get("export", **params).status_code == 400

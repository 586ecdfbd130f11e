import pytest

from historyhub.history import item_log, sessions
from historyhub.lib.errors import InvalidInput, SessionNotFound
from tests.support.clock import ServerClock, parse_time
from tests.support.readers import snapshot, timeline, timeline_item


@pytest.fixture
def child_id(session_id):
    child, _ = sessions.ensure(
        agent="researchAgent", session_id="ses_child", parent_session_id=session_id, parent_call_id="call_research"
    )
    return child.id


def test_a_child_session_is_a_running_subagent_of_its_parent(session_id):
    with ServerClock() as clock:
        sessions.ensure(
            agent="researchAgent", session_id="ses_child", parent_session_id=session_id, parent_call_id="call_research"
        )

    [item] = timeline(session_id)
    assert clock.saw(parse_time(item.pop("createdAt")))
    assert item == {
        "id": "subagent:call_research",
        "type": "subagent",
        "name": "researchAgent",
        "callId": "call_research",
        "childSessionId": "ses_child",
        "status": "running",
        "summary": "researchAgent running.",
    }


def test_the_child_snapshot_names_its_lineage(session_id, child_id):
    assert snapshot(child_id)["lineage"] == {
        "origin": "delegated",
        "parentAgent": "supportAgent",
        "parentSessionId": session_id,
        "parentCallId": "call_research",
    }


def test_a_session_without_a_parent_has_no_lineage(session_id):
    assert snapshot(session_id)["lineage"] is None


def test_the_parent_waits_for_its_subagent(session_id, child_id):
    assert snapshot(session_id)["runStatus"] == "waiting_for_subagent"


@pytest.mark.parametrize(
    "run_status, shown",
    [
        ("completed", "completed"),
        ("paused", "paused"),
        ("failed", "failed"),
        ("running", "running"),
        ("waiting_for_client_action", "running"),
        ("waiting_for_subagent", "running"),
        (None, "running"),
    ],
)
def test_the_subagent_status_follows_the_childs_run_status(session_id, child_id, run_status, shown):
    sessions.update(child_id, run_status=run_status)

    item = timeline_item(session_id, "subagent:call_research")
    assert item["status"] == shown
    assert item["summary"] == f"researchAgent {shown}."


def test_the_parent_runs_again_when_its_last_subagent_completes(session_id, child_id):
    sessions.ensure(
        agent="writerAgent", session_id="ses_child_2", parent_session_id=session_id, parent_call_id="call_write"
    )

    sessions.update(child_id, run_status="completed")
    assert snapshot(session_id)["runStatus"] == "waiting_for_subagent"

    sessions.update("ses_child_2", run_status="failed")
    assert snapshot(session_id)["runStatus"] == "running"


def test_a_child_completing_through_its_log_updates_the_parent(session_id, child_id):
    item_log.append(child_id, [{"type": "session_completed", "id": "done_1"}])

    item = timeline_item(session_id, "subagent:call_research")
    assert (item["status"], item["summary"]) == ("completed", "researchAgent completed.")
    assert snapshot(session_id)["runStatus"] == "running"


def test_popping_the_childs_completion_puts_the_subagent_back_to_running(session_id, child_id):
    item_log.append(child_id, [{"type": "session_completed", "id": "done_1"}])

    item_log.pop(child_id)

    assert timeline_item(session_id, "subagent:call_research")["status"] == "running"


def test_a_client_action_in_the_child_shows_the_subagent_running(session_id, child_id):
    item_log.append(child_id, [{"type": "mcp_approval_request", "id": "mcpr_1", "name": "x", "arguments": "{}"}])

    assert snapshot(child_id)["runStatus"] == "waiting_for_client_action"
    assert timeline_item(session_id, "subagent:call_research")["status"] == "running"


def test_a_paused_parent_is_not_made_to_wait(session_id):
    sessions.update(session_id, run_status="paused")

    sessions.ensure(
        agent="researchAgent", session_id="ses_child", parent_session_id=session_id, parent_call_id="call_research"
    )

    assert snapshot(session_id)["runStatus"] == "paused"


def test_a_parent_that_does_not_exist_is_not_found(db):
    with pytest.raises(SessionNotFound):
        sessions.ensure(
            agent="researchAgent",
            session_id="ses_child",
            parent_session_id="ses_missing",
            parent_call_id="call_research",
        )

    assert not sessions.search("default", q="ses_child").exists()


@pytest.mark.parametrize(
    "parent_fields",
    [
        {"parent_session_id": "ses_support"},
        {"parent_call_id": "call_research"},
    ],
)
def test_parent_session_and_call_go_together(session_id, parent_fields):
    with pytest.raises(InvalidInput):
        sessions.ensure(agent="researchAgent", session_id="ses_child", **parent_fields)


def test_an_orcha_subagent_item_is_passed_through(session_id):
    item_log.append(
        session_id,
        [
            {
                "type": "subagent",
                "id": "sa_1",
                "callId": "call_delegate",
                "name": "researchAgent",
                "childSessionId": "ses_elsewhere",
                "status": "completed",
                "summary": "researchAgent completed.",
                "createdAt": "2026-09-28T12:00:00Z",
            }
        ],
    )

    assert timeline(session_id) == [
        {
            "id": "subagent:call_delegate",
            "type": "subagent",
            "createdAt": "2026-09-28T12:00:00Z",
            "callId": "call_delegate",
            "name": "researchAgent",
            "childSessionId": "ses_elsewhere",
            "status": "completed",
            "summary": "researchAgent completed.",
        }
    ]

"""The usage tallies Insights reads whole hours from (docs/insights.md, "Performance"): after every write that adds,
removes or moves items (appends, pops, replaces, transactions, compactions, clears, a metadata model change, a
session's delete, erasure, retention, an import), they equal a recount of the item rows; two writers adding to one
hour at once lose nothing."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from historyhub.apikeys.models import ApiKey
from historyhub.data import erasure
from historyhub.data.importing import import_lines
from historyhub.history import client_actions, item_log, sessions, transactions, usage_hours
from historyhub.history.models import Session, UsageHour
from historyhub.history.usage_hours import CLIENT_ACTIONS
from historyhub.lib import jsonvalues
from historyhub.projects import administration
from historyhub.projects.models import Project
from historyhub.upkeep import retention
from tests.support.items import assistant, user
from tests.support.processes import PROCESSES, run_together

START = datetime(2026, 9, 1, 10, 20, tzinfo=UTC)


def assert_tallies_are_the_rows():
    """The one check: the tallies table's non-zero rows are exactly what the rows (sessions, items, client actions)
    add up to."""
    held = usage_hours.held()
    assert held == usage_hours.everything()
    return held


def spent(model="", usage=None):
    """An assistant item reporting tokens, in the Orcha format, naming ``model`` if given."""
    fields = {"usage": usage or {"inputTokens": 100, "outputTokens": 10}}
    if model:
        fields["model"] = model
    return assistant("done", **fields)


def at(hours):
    return time_machine.travel(START + timedelta(hours=hours), tick=False)


# A client action of an export line, opened through the API.
EXPORTED_ACTION = {
    "callId": "c9",
    "name": "refund",
    "arguments": {},
    "status": "waiting",
    "createdAt": "2026-08-01T05:40:00Z",
}
# An item that opens a client action (docs/dialects.md).
APPROVAL = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_file", "arguments": "{}"}


def totals(held, project="default"):
    items = sum(counts[0] for key, counts in held.items() if key[0] == project)
    tokens = sum(counts[1] for key, counts in held.items() if key[0] == project)
    return items, tokens


@pytest.fixture
def ledger(db):
    with at(0):
        sessions.ensure(agent="support", session_id="one", metadata={"model": "gpt-5"})
        sessions.ensure(agent="billing", session_id="two")
        item_log.append("one", [user("hi"), spent(), spent(model="mini")])
        item_log.append("two", [user("hello"), spent(usage={"input_tokens": 7, "output_tokens": 3})])
    with at(1):
        item_log.append("one", [spent(), user("more")])
    return assert_tallies_are_the_rows()


def test_appends_count_items_per_agent_and_tokens_per_model_in_their_hour(ledger):
    hour = START.replace(minute=0)
    assert ledger[("default", hour, "support", "")] == [3, 0, 0, 1, 0]
    assert ledger[("default", hour, "support", "gpt-5")] == [0, 100, 10, 0, 0]
    assert ledger[("default", hour, "support", "mini")] == [0, 100, 10, 0, 0]
    assert ledger[("default", hour, "billing", "")] == [2, 7, 3, 1, 0]
    assert ledger[("default", hour + timedelta(hours=1), "support", "gpt-5")] == [0, 100, 10, 0, 0]
    assert totals(ledger) == (7, 307)


def test_client_actions_count_by_when_they_opened_and_leave_with_what_removes_them(ledger):
    with at(5):
        client_actions.open_action("one", call_id="c1", name="refund", arguments={})
        item_log.append("one", [APPROVAL])
    hour = START.replace(minute=0) + timedelta(hours=5)
    assert assert_tallies_are_the_rows()[("default", hour, "support", "")][CLIENT_ACTIONS] == 2
    item_log.pop("one")
    assert assert_tallies_are_the_rows()[("default", hour, "support", "")][CLIENT_ACTIONS] == 1
    with at(6):
        item_log.append("one", [APPROVAL])
        item_log.replace("one", [user("again")])
    # The replace took the approval and its action back: what stays of the hour is the item it stored.
    assert assert_tallies_are_the_rows()[("default", hour + timedelta(hours=1), "support", "")] == [1, 0, 0, 0, 0]
    item_log.clear("one")
    assert ("default", hour, "support", "") not in assert_tallies_are_the_rows()


def test_pops_replaces_and_transactions_take_back_what_they_remove(ledger):
    with at(2):
        item_log.pop("one")
        assert totals(assert_tallies_are_the_rows()) == (6, 307)
        item_log.pop("one")
        assert totals(assert_tallies_are_the_rows()) == (5, 207)
        item_log.replace("two", [spent(model="mini")])
        assert_tallies_are_the_rows()
        transactions.apply("one", "op-1", {"type": "append_items", "items": [spent(), user("x")]})
        assert_tallies_are_the_rows()
        replaced = {"type": "replace_suffix", "expectedSuffix": [user("x")], "replacement": [spent(model="big")]}
        transactions.apply("one", "op-2", replaced)
    held = assert_tallies_are_the_rows()
    assert held[("default", START.replace(minute=0) + timedelta(hours=2), "support", "big")][:3] == [0, 100, 10]


def test_compaction_keeps_the_archived_items_counted_and_clear_removes_them(ledger):
    with at(3):
        item_log.compact("one", [{"type": "compaction", "id": "c1", "encrypted_content": "x"}, spent()])
    assert totals(assert_tallies_are_the_rows()) == (9, 407)
    item_log.clear("one")
    assert totals(assert_tallies_are_the_rows()) == (2, 7)


def test_a_metadata_model_change_moves_the_tokens_of_items_that_name_none(ledger):
    sessions.update("one", metadata={"model": "gpt-6"})
    held = assert_tallies_are_the_rows()
    assert ("default", START.replace(minute=0), "support", "gpt-5") not in held
    assert held[("default", START.replace(minute=0), "support", "gpt-6")][:3] == [0, 100, 10]
    sessions.update("one", metadata={"team": "a"})
    assert held != assert_tallies_are_the_rows()


def test_deletes_erasure_and_retention_take_away_the_sessions_items(ledger):
    with at(4):
        sessions.ensure(agent="support", session_id="three", metadata={"customer": "ana"})
        sessions.ensure(agent="support", session_id="four", parent_session_id="three", parent_call_id="c")
        client_actions.open_action("four", call_id="c1", name="refund", arguments={})
        item_log.append("three", [spent(), user("a")])
        item_log.append("four", [spent(model="mini")])
    assert totals(assert_tallies_are_the_rows()) == (10, 507)

    assert erasure.erase("default", "customer", "ana", actor="test") == 2
    assert totals(assert_tallies_are_the_rows()) == (7, 307)

    sessions.delete("two", actor="test")
    assert totals(assert_tallies_are_the_rows()) == (5, 300)

    Project.objects.filter(pk="default").update(retention_days=1)
    Session.objects.filter(pk="one").update(updated_at=START)
    assert retention.sweep(START + timedelta(days=30)) == 1
    assert assert_tallies_are_the_rows() == {}


def test_an_import_counts_its_session_items_and_actions_in_the_hours_they_happened(ledger):
    administration.create_project("acme", "Acme")
    line = {
        "session": {
            "sessionId": "imported",
            "agent": "support",
            "status": "completed",
            "runStatus": None,
            "metadata": {"model": "gpt-5"},
            "createdAt": "2026-08-01T05:30:00Z",
            "updatedAt": "2026-08-01T06:00:00Z",
        },
        "items": [
            {"position": 1, "epoch": 0, "item": user("hi")},
            {"position": 2, "epoch": 0, "item": spent()},
        ],
        "clientActions": [EXPORTED_ACTION],
        "runs": [],
    }
    import_lines("acme", [jsonvalues.dumps(line)], actor="test", by_key=ApiKey.issue("i", "admin", project="acme")[0])
    held = assert_tallies_are_the_rows()
    assert held[("acme", datetime(2026, 8, 1, 5, tzinfo=UTC), "support", "")] == [2, 0, 0, 1, 1]
    assert held[("acme", datetime(2026, 8, 1, 5, tzinfo=UTC), "support", "gpt-5")] == [0, 100, 10, 0, 0]


def test_deferred_tallies_are_upserted_once_as_the_block_ends(ledger):
    with usage_hours.deferred():
        item_log.append("one", [spent()])
        sessions.ensure(agent="support", session_id="five")
        assert usage_hours.held() == ledger
    assert totals(assert_tallies_are_the_rows()) == (8, 407)


def test_a_project_deleted_takes_its_tallies_with_it(db):
    administration.create_project("empty", "Empty")
    usage_hours.add({("empty", START, "support", ""): [0, 5, 1, 0, 0]})
    Project.objects.filter(pk="empty").delete()
    assert not UsageHour.objects.filter(project_id="empty").exists()


APPENDS = 10


def append_to_the_same_hour(index):
    """Each process appends to a session of its own, of one agent, in one hour: every write upserts the same rows."""
    sessions.ensure(agent="support", session_id=f"racer-{index}", metadata={"model": "gpt-5"})
    for _ in range(APPENDS):
        item_log.append(f"racer-{index}", [user("go"), spent()])


@pytest.mark.django_db(transaction=True)
def test_writers_adding_to_one_hour_at_once_lose_nothing():
    run_together(append_to_the_same_hour)

    held = assert_tallies_are_the_rows()
    assert totals(held) == (PROCESSES * APPENDS * 2, PROCESSES * APPENDS * 100)

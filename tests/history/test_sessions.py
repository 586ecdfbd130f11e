import re

import pytest

from historyhub.history import client_actions, item_log, sessions, transactions
from historyhub.history.models import ClientAction, Item, Operation, Session, TimelineEntry
from historyhub.lib import paging
from historyhub.lib.errors import InvalidInput, SessionConflict, SessionNotFound
from tests.support.clock import ServerClock, parse_time
from tests.support.items import user
from tests.support.readers import snapshot


def test_ensure_creates_a_session_with_a_generated_id(db):
    with ServerClock() as clock:
        session, created = sessions.ensure(agent="supportAgent")

    assert created is True
    assert re.fullmatch(r"ses_[0-9A-HJKMNP-TV-Z]{26}", session.id)
    state = snapshot(session.id)
    assert clock.saw(parse_time(state.pop("createdAt")))
    assert clock.saw(parse_time(state.pop("updatedAt")))
    assert state == {
        "sessionId": session.id,
        "agent": "supportAgent",
        "name": None,
        "status": "active",
        "metadata": {},
        "runStatus": None,
        "pendingClientActions": [],
        "lineage": None,
        "usage": None,
        "itemCount": 0,
    }


def test_generated_ids_differ(db):
    first, _ = sessions.ensure(agent="supportAgent")
    second, _ = sessions.ensure(agent="supportAgent")

    assert first.id != second.id


def test_ensure_keeps_the_name_and_metadata_given(db):
    sessions.ensure(
        agent="supportAgent",
        session_id="ses_1",
        name="Order 42",
        metadata={"tier": "gold", "seats": 3, "ratio": 0.5, "trial": False, "region": None},
    )

    state = snapshot("ses_1")
    assert state["name"] == "Order 42"
    assert state["metadata"] == {"tier": "gold", "seats": 3, "ratio": 0.5, "trial": False, "region": None}


def test_ensuring_an_existing_session_of_the_same_agent_returns_it(db):
    sessions.ensure(agent="supportAgent", session_id="ses_1", name="first")

    session, created = sessions.ensure(agent="supportAgent", session_id="ses_1", name="second")

    assert created is False
    assert session.name == "first"


def test_ensuring_an_existing_session_of_another_agent_is_a_conflict(db):
    sessions.ensure(agent="supportAgent", session_id="ses_1")

    with pytest.raises(SessionConflict) as error:
        sessions.ensure(agent="billingAgent", session_id="ses_1")

    assert error.value.status == 409
    assert sessions.get("ses_1").agent == "supportAgent"


@pytest.mark.parametrize("metadata", [{"nested": {"a": 1}}, {"list": [1]}, ["a"], "tier=gold"])
def test_metadata_values_must_be_scalars(db, metadata):
    with pytest.raises(InvalidInput):
        sessions.ensure(agent="supportAgent", session_id="ses_1", metadata=metadata)

    assert not sessions.search("default", q="ses_1").exists()


@pytest.mark.parametrize("session_id", ["", "-dash", "_under", ".dot", "has space", "slash/", "é", "s" * 201])
def test_ensure_rejects_invalid_session_ids(db, session_id):
    with pytest.raises(InvalidInput):
        sessions.ensure(agent="supportAgent", session_id=session_id)


@pytest.mark.parametrize("agent", ["", None, "a" * 201, 5])
def test_ensure_rejects_an_invalid_agent(db, agent):
    with pytest.raises(InvalidInput):
        sessions.ensure(agent=agent, session_id="ses_1")


def test_get_of_an_unknown_session_is_not_found(db):
    with pytest.raises(SessionNotFound) as error:
        sessions.get("ses_unknown")

    assert (error.value.code, error.value.status) == ("session_not_found", 404)


def test_update_changes_the_fields_given_only(session_id):
    sessions.update(session_id, name="Renamed", metadata={"tier": "silver"})
    session = sessions.update(session_id, status="paused", run_status="failed")

    state = sessions.snapshot(session)
    assert (state.name, state.metadata, state.status, state.run_status) == (
        "Renamed",
        {"tier": "silver"},
        "paused",
        "failed",
    )


def test_update_can_clear_the_run_status(session_id):
    sessions.update(session_id, run_status="running")

    sessions.update(session_id, run_status=None)

    assert snapshot(session_id)["runStatus"] is None


@pytest.mark.parametrize(
    "changes",
    [
        {"status": "archived"},
        {"status": None},
        {"run_status": "sleeping"},
        {"name": 5},
        {"metadata": {"nested": {}}},
    ],
)
def test_update_rejects_invalid_values_and_changes_nothing(session_id, changes):
    with pytest.raises(InvalidInput):
        sessions.update(session_id, **{"name": "Not kept", **changes})

    assert snapshot(session_id)["name"] is None
    assert snapshot(session_id)["status"] == "active"


def test_update_of_an_unknown_session_is_not_found(db):
    with pytest.raises(SessionNotFound):
        sessions.update("ses_unknown", name="x")


def test_update_marks_the_session_updated(session_id):
    before = sessions.get(session_id).updated_at

    sessions.update(session_id, name="Renamed")

    assert sessions.get(session_id).updated_at > before


def test_delete_removes_the_session_and_everything_it_owns(session_id):
    item_log.append(session_id, [user("hello"), {"type": "skill", "id": "s1"}])
    client_actions.open_action(session_id, call_id="call_1", name="confirm", arguments={})
    transactions.apply(session_id, "op_1", {"type": "append_items", "items": [user("more")]})
    sessions.ensure(agent="otherAgent", session_id="ses_other")
    item_log.append("ses_other", [user("stays")])

    sessions.delete(session_id, actor="tests")

    with pytest.raises(SessionNotFound):
        sessions.get(session_id)
    for model in (Item, TimelineEntry, ClientAction, Operation):
        assert not model.objects.filter(session_id=session_id).exists()
    assert Item.objects.filter(session_id="ses_other").count() == 1


def test_a_deleted_session_id_can_be_used_again_from_scratch(session_id):
    item_log.append(session_id, [user("hello", id="msg_1")])
    sessions.delete(session_id, actor="tests")

    inserted, item_count = item_log.append(session_id, [user("hello", id="msg_1")], agent="newAgent")

    assert (inserted, item_count) == ([True], 1)
    assert sessions.get(session_id).agent == "newAgent"


def test_deleting_a_parent_deletes_its_child(session_id):
    sessions.ensure(
        agent="researchAgent", session_id="ses_child", parent_session_id=session_id, parent_call_id="call_1"
    )

    sessions.delete(session_id, actor="tests")

    assert not Session.objects.filter(pk="ses_child").exists()


def test_delete_of_an_unknown_session_is_not_found(db):
    with pytest.raises(SessionNotFound):
        sessions.delete("ses_unknown", actor="tests")


@pytest.fixture
def three_sessions(db):
    sessions.ensure(agent="supportAgent", session_id="ses_a", name="Refund for Ana", metadata={"plan": "gold"})
    sessions.ensure(agent="billingAgent", session_id="ses_b", metadata={"invoice": "INV-77"})
    sessions.ensure(agent="supportAgent", session_id="ses_c")
    item_log.append("ses_c", [user("My parcel never arrived")])
    sessions.update("ses_b", status="completed", run_status="completed")


def ids(queryset):
    return [session.id for session in queryset]


def test_search_lists_the_most_recently_updated_first(three_sessions):
    assert ids(sessions.search("default")) == ["ses_b", "ses_c", "ses_a"]

    item_log.append("ses_a", [user("ping")])

    assert ids(sessions.search("default")) == ["ses_a", "ses_b", "ses_c"]


def test_search_filters_by_agent_status_and_run_status(three_sessions):
    assert ids(sessions.search("default", agent="supportAgent")) == ["ses_c", "ses_a"]
    assert ids(sessions.search("default", status="completed")) == ["ses_b"]
    assert ids(sessions.search("default", run_status="completed")) == ["ses_b"]
    assert ids(sessions.search("default", agent="supportAgent", status="completed")) == []


@pytest.mark.parametrize(
    "q, found",
    [
        ("ses_a", ["ses_a"]),
        ("ana", ["ses_a"]),
        ("billing", ["ses_b"]),
        ("INV-77", ["ses_b"]),
        ("parcel", ["ses_c"]),
        ("nothing like it", []),
    ],
)
def test_search_matches_id_name_agent_metadata_values_and_message_text(three_sessions, q, found):
    assert ids(sessions.search("default", q=q)) == found


@pytest.mark.parametrize("q", ["plan", "invoice", "{}", '"'])
def test_search_does_not_match_metadata_keys_or_json_punctuation(three_sessions, q):
    assert ids(sessions.search("default", q=q)) == []


def test_search_follows_metadata_changes(three_sessions):
    sessions.update("ses_a", metadata={"plan": "silver", "seats": 12})

    assert ids(sessions.search("default", q="gold")) == []
    assert ids(sessions.search("default", q="silver")) == ["ses_a"]
    assert ids(sessions.search("default", q="12")) == ["ses_a"]


def test_search_does_not_match_text_of_items_that_are_not_messages(three_sessions):
    item_log.append("ses_a", [{"type": "skill", "id": "s1", "summary": "zebra"}])

    assert ids(sessions.search("default", q="zebra")) == []


def test_search_can_list_sessions_with_waiting_client_actions(three_sessions):
    client_actions.open_action("ses_c", call_id="call_1", name="confirm", arguments={})

    assert ids(sessions.search("default", waiting=True)) == ["ses_c"]


@pytest.mark.parametrize("filters", [{"status": "archived"}, {"run_status": "sleeping"}])
def test_search_rejects_unknown_statuses(db, filters):
    with pytest.raises(InvalidInput):
        sessions.search("default", **filters)


def test_agents_lists_each_agent_with_a_session_once_in_order(three_sessions):
    assert sessions.agents("default") == ["billingAgent", "supportAgent"]

    sessions.delete("ses_b", actor="tests")

    assert sessions.agents("default") == ["supportAgent"]


def test_page_of_cuts_a_queryset_into_pages(three_sessions):
    first = paging.page_of(sessions.search("default"), 1, 2)
    assert (ids(first.items), first.total, first.has_more) == (["ses_b", "ses_c"], 3, True)

    second = paging.page_of(sessions.search("default"), 2, 2)
    assert (ids(second.items), second.total, second.has_more) == (["ses_a"], 3, False)

    past = paging.page_of(sessions.search("default"), 3, 2)
    assert (ids(past.items), past.total, past.has_more) == ([], 3, False)


def test_the_snapshot_counts_items_of_the_logical_history(session_id):
    item_log.append(session_id, [user("1"), user("2"), {"type": "reasoning"}])
    item_log.pop(session_id)

    assert snapshot(session_id)["itemCount"] == 2


def test_snapshots_of_many_sessions_read_their_pending_actions_together(three_sessions):
    client_actions.open_action("ses_a", call_id="call_1", name="confirm", arguments={"n": 1})
    client_actions.open_action("ses_a", call_id="call_2", name="confirm", arguments={"n": 2})

    listed = {
        session.id: sessions.snapshot(session)
        for session in sessions.with_snapshot_relations(sessions.search("default"))
    }

    assert [pending.call_id for pending in listed["ses_a"].pending_client_actions] == ["call_1", "call_2"]
    assert listed["ses_b"].pending_client_actions == []

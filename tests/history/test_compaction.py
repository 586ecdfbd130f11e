import pytest

from historyhub.approvals import deciding
from historyhub.history import chat_format, client_actions, history_pages, item_log, sessions, wire_entries
from historyhub.history.models import Item
from historyhub.lib.errors import InvalidInput
from tests.support.actors import as_approver
from tests.support.items import assistant, user
from tests.support.readers import items_in_log, snapshot, timeline, timeline_ids

COMPACTION = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA…"}


def long_history(session_id):
    items = [
        user("What is the refund policy?", id="msg_1"),
        assistant("Thirty days.", id="msg_2"),
        user("And for sale items?", id="msg_3"),
        assistant("Fourteen days.", id="msg_4"),
    ]
    item_log.append(session_id, items)
    return items


def test_the_logical_history_becomes_exactly_the_items_given(session_id):
    items = long_history(session_id)

    changed, item_count = item_log.compact(session_id, [COMPACTION, *items[2:]])

    assert changed is True
    assert item_count == 3
    assert items_in_log(session_id) == [COMPACTION, *items[2:]]
    assert snapshot(session_id)["itemCount"] == 3


def test_earlier_items_are_kept_archived(session_id):
    items = long_history(session_id)

    item_log.compact(session_id, [COMPACTION, *items[2:]])

    epoch = sessions.get(session_id).epoch
    archived = Item.objects.filter(session_id=session_id, epoch__lt=epoch).order_by("position")
    assert [row.value for row in archived] == items
    assert [row.value for row in Item.objects.filter(session_id=session_id, epoch=epoch).order_by("position")] == [
        COMPACTION,
        *items[2:],
    ]


def test_archived_items_are_no_longer_read_through_any_projection(session_id):
    items = long_history(session_id)

    item_log.compact(session_id, [COMPACTION, items[3]])

    assert items_in_log(session_id) == [COMPACTION, items[3]]
    assert items_in_log(session_id, limit=10) == [COMPACTION, items[3]]
    assert [item["content"][0]["text"] for item in timeline(session_id)] == ["Fourteen days."]
    assert history_pages.history(session_id).total == 1
    [entry] = wire_entries.wire_entries(session_id)
    assert (entry["kind"], entry["id"], entry["content"]) == ("injection", "msg_4", "Fourteen days.")
    assert chat_format.export(session_id) == [{"role": "assistant", "content": "Fourteen days."}]
    assert wire_entries.find_response(session_id, "msg_1") == {"result": "miss"}


def test_the_session_keeps_its_identity(db):
    sessions.ensure(agent="supportAgent", session_id="ses_kept", name="Refunds", metadata={"tier": "gold"})
    items = long_history("ses_kept")
    before = snapshot("ses_kept")

    item_log.compact("ses_kept", [COMPACTION, *items[2:]])

    after = snapshot("ses_kept")
    for field in ("sessionId", "agent", "name", "metadata", "createdAt", "status"):
        assert after[field] == before[field]


def test_ids_of_archived_items_can_be_stored_again(session_id):
    items = long_history(session_id)
    item_log.compact(session_id, [COMPACTION])

    inserted, _ = item_log.append(session_id, [items[0]])

    assert inserted == [True]


def test_ids_of_the_retained_items_are_identities_of_the_new_history(session_id):
    items = long_history(session_id)
    item_log.compact(session_id, [COMPACTION, *items[2:]])

    inserted, item_count = item_log.append(session_id, [items[3]], skip_existing_ids=True)

    assert inserted == [False]
    assert item_count == 3


def test_positions_keep_growing_across_a_compaction(session_id):
    items = long_history(session_id)

    item_log.compact(session_id, [COMPACTION, items[3]])

    assert timeline_ids(session_id) == ["message:6"]


@pytest.mark.parametrize("where", ["first", "last"])
def test_the_compaction_item_may_come_first_or_last(session_id, where):
    items = long_history(session_id)
    replacement = [COMPACTION, items[3]] if where == "first" else [items[3], COMPACTION]

    changed, _ = item_log.compact(session_id, replacement)

    assert changed is True
    assert items_in_log(session_id) == replacement


def test_a_compaction_item_in_the_middle_is_not_a_compaction(session_id):
    items = long_history(session_id)

    with pytest.raises(InvalidInput) as error:
        item_log.compact(session_id, [items[2], COMPACTION, items[3]])

    assert error.value.message == 'items must hold an item of type "compaction", first or last.'

    assert items_in_log(session_id) == items
    assert sessions.get(session_id).epoch == 0


def test_an_empty_replacement_is_not_a_compaction(session_id):
    items = long_history(session_id)

    with pytest.raises(InvalidInput):
        item_log.compact(session_id, [])

    assert items_in_log(session_id) == items


def test_a_replacement_equal_to_the_current_history_changes_nothing(session_id):
    items = long_history(session_id)
    item_log.compact(session_id, [COMPACTION, *items[2:]])
    before = sessions.get(session_id)

    reordered = {"encrypted_content": "gAAAA…", "id": "cmp_1", "type": "compaction"}
    changed, item_count = item_log.compact(session_id, [reordered, *items[2:]])

    after = sessions.get(session_id)
    assert changed is False
    assert item_count == 3
    assert after.epoch == before.epoch
    assert after.version == before.version
    assert items_in_log(session_id) == [COMPACTION, *items[2:]]
    assert Item.objects.filter(session_id=session_id).count() == 7


def test_a_waiting_client_action_opened_through_the_api_stays_in_view(session_id):
    long_history(session_id)
    client_actions.open_action(session_id, call_id="call_9", name="confirm_refund", arguments={"amount": 5})

    item_log.compact(session_id, [COMPACTION])

    assert timeline_ids(session_id) == ["client-action:call_9"]
    assert snapshot(session_id)["runStatus"] == "waiting_for_client_action"
    action, changed = deciding.decide(session_id, "call_9", decision="approve", decider=as_approver())
    assert changed is True
    assert timeline(session_id)[0]["status"] == "completed"


def test_compacting_twice_archives_both_earlier_histories(session_id):
    items = long_history(session_id)
    item_log.compact(session_id, [COMPACTION, items[3]])

    second = {"type": "compaction", "id": "cmp_2"}
    item_log.compact(session_id, [second])

    assert items_in_log(session_id) == [second]
    assert Item.objects.filter(session_id=session_id).count() == 7
    assert sessions.get(session_id).epoch == 2


def test_popping_after_a_compaction_never_reaches_archived_items(session_id):
    long_history(session_id)
    item_log.compact(session_id, [COMPACTION])

    assert item_log.pop(session_id) == COMPACTION
    assert item_log.pop(session_id) is None
    assert Item.objects.filter(session_id=session_id).count() == 4


def test_a_replacement_that_is_not_a_list_of_objects_changes_nothing(session_id):
    items = long_history(session_id)

    with pytest.raises(InvalidInput) as error:
        item_log.compact(session_id, [COMPACTION, "text"])

    assert error.value.message == "item at index 1 is not an object"
    assert items_in_log(session_id) == items


def test_usage_sums_the_history_that_compaction_leaves(session_id):
    item_log.append(
        session_id,
        [
            {"type": "skill", "id": "s1", "usage": {"inputTokens": 100, "outputTokens": 10}},
            {"type": "skill", "id": "s2", "usage": {"inputTokens": 5}},
        ],
    )

    item_log.compact(session_id, [COMPACTION, {"type": "skill", "id": "s2", "usage": {"inputTokens": 5}}])

    assert snapshot(session_id)["usage"] == {"inputTokens": 5}


@pytest.mark.parametrize("where", ["first", "last"])
def test_the_compaction_item_that_began_an_epoch_is_found_first_or_last(session_id, where):
    items = long_history(session_id)
    item_log.compact(session_id, [COMPACTION, items[3]] if where == "first" else [items[3], COMPACTION])
    session = sessions.get(session_id)

    assert item_log.compaction_item(session, session.epoch) == COMPACTION


def test_each_archived_epoch_has_its_own_compaction_item(session_id):
    items = long_history(session_id)
    first = {"type": "compaction", "id": "cmp_1", "summary": "first"}
    second = {"type": "compaction", "id": "cmp_2", "summary": "second"}
    third = {"type": "compaction", "id": "cmp_3", "summary": "third"}
    item_log.compact(session_id, [first, items[3]])
    # An epoch whose last items project nothing onto the timeline: the look still starts before it.
    item_log.append(session_id, [{"type": "reasoning", "summary": []}])
    item_log.compact(session_id, [items[2], second])
    item_log.compact(session_id, [third])
    session = sessions.get(session_id)

    assert [item_log.compaction_item(session, epoch) for epoch in (1, 2, 3)] == [first, second, third]


def test_an_epoch_no_compaction_began_has_no_compaction_item(session_id):
    long_history(session_id)
    item_log.append(session_id, [COMPACTION])

    assert item_log.compaction_item(sessions.get(session_id), 0) is None


def test_a_compaction_that_keeps_no_message_leaves_the_last_message_shown(session_id):
    long_history(session_id)

    item_log.compact(session_id, [COMPACTION])

    assert sessions.get(session_id).last_message == "Fourteen days."

"""``live.announce`` on the suite's database: delivered when the write commits, never when it rolls back; a
write announces which of its session's client actions it changed. Each announcement is awaited with ``woken``:
it must wake its subscriber well before the wait would end."""

import asyncio

import pytest
from django.db import connection, transaction

from historyhub import live
from historyhub.approvals import deciding
from historyhub.approvals.deciders import Decider
from historyhub.history import client_actions, item_log, sessions
from tests.support.actors import make_approver
from tests.support.waiting import woken

pytestmark = pytest.mark.django_db(transaction=True)


EVERYTHING = live.Interest(project="default")


def heard_while(act, interest=EVERYTHING, until_heard="done"):
    """Every change a subscriber of ``interest`` hears while ``act`` runs on another thread, up to the announcement
    of a change of the session ``until_heard`` (sent after ``act``, so everything before it has arrived)."""

    def act_and_mark():
        try:
            act()
            live.announce(live.Change(until_heard, all_actions=True, inbox=True))
        finally:
            connection.close()

    async def scenario():
        seen = set()
        async with live.listen(interest) as changes, live.listen(EVERYTHING) as marker:
            await asyncio.to_thread(act_and_mark)
            # One change reaches every subscriber it concerns at once: once the marker's arrived, the rest has.
            while until_heard not in seen:
                seen |= (await woken(marker)).session_ids
            return (await changes.wait(0)).session_ids

    return asyncio.run(scenario())


def test_a_committed_write_wakes_the_subscribers_of_its_session():
    def write():
        sessions.ensure(agent="supportAgent", session_id="announced")
        item_log.append("announced", [{"role": "user", "content": "hello"}])

    assert "announced" in heard_while(write, live.Interest(session="announced", inbox="default"))


def test_a_write_that_rolls_back_announces_nothing():
    def write_then_fail():
        with pytest.raises(RuntimeError), transaction.atomic():
            live.announce(live.Change("rolled-back"))
            raise RuntimeError("the write fails")

    # Announcements arrive in commit order: the marker after it proves it was never sent.
    assert "rolled-back" not in heard_while(write_then_fail)


def test_many_changes_announced_at_once_each_reach_their_subscribers():
    def announce_many():
        with transaction.atomic():
            live.announce(*(live.Change(f"gone-{number}", all_actions=True, inbox=True) for number in range(50)))

    assert heard_while(announce_many) >= {f"gone-{number}" for number in range(50)}


def test_deleting_a_parent_is_announced_for_it_and_each_descendant():
    sessions.ensure(agent="a", session_id="parent")
    sessions.ensure(agent="a", session_id="child", parent_session_id="parent", parent_call_id="c1")

    def delete():
        sessions.delete("parent", actor="tests")

    assert heard_while(delete) >= {"parent", "child"}


@pytest.fixture
def batch():
    """A session with two actions waiting, and a person who may decide them."""
    sessions.ensure(agent="supportAgent", session_id="batch")
    for call_id in ("refund-1", "refund-2"):
        client_actions.open_action("batch", call_id=call_id, name="issue_refund", arguments={})
    return Decider.person(make_approver())


def test_an_append_and_a_decision_on_another_action_are_not_announced_to_a_waiter(batch):
    def append_then_decide_the_other():
        item_log.append("batch", [{"role": "user", "content": "any news?"}])
        deciding.decide("batch", "refund-2", decision="approve", decider=batch)

    assert "batch" not in heard_while(append_then_decide_the_other, live.Interest(action=("batch", "refund-1")))


def test_a_decision_is_announced_to_the_waiters_of_its_action(batch):
    def decide():
        deciding.decide("batch", "refund-1", decision="reject", decider=batch)

    assert "batch" in heard_while(decide, live.Interest(action=("batch", "refund-1")))


def test_deleting_the_session_is_announced_to_the_waiters_of_every_action_of_it(batch):
    assert "batch" in heard_while(
        lambda: sessions.delete("batch", actor="tests"), live.Interest(action=("batch", "refund-2"))
    )

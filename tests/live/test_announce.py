"""``live.announce`` on the suite's database: delivered when the write commits, never when it rolls back."""

import asyncio

import pytest
from django.db import connection, transaction

from historyhub import live
from historyhub.history import item_log, sessions

pytestmark = pytest.mark.django_db(transaction=True)


def heard_while(act, session_id=None, until_heard="done"):
    """Everything a subscriber hears while ``act`` runs on another thread, up to the announcement of ``until_heard``."""

    def act_and_mark():
        try:
            act()
            live.announce(until_heard)
        finally:
            connection.close()

    async def scenario():
        heard = set()
        async with live.listen(session_id) as changes:
            await asyncio.to_thread(act_and_mark)
            while until_heard not in heard:
                changes_now = await changes.wait(10)
                assert changes_now, "nothing was heard"
                heard |= changes_now.session_ids
        return heard

    return asyncio.run(scenario())


def test_a_committed_write_wakes_the_subscribers_of_its_session():
    def write():
        sessions.ensure(agent="supportAgent", session_id="announced")
        item_log.append("announced", [{"role": "user", "content": "hello"}])

    assert "announced" in heard_while(write)


def test_a_write_that_rolls_back_announces_nothing():
    def write_then_fail():
        with pytest.raises(RuntimeError), transaction.atomic():
            live.announce("rolled-back")
            raise RuntimeError("the write fails")

    # Announcements arrive in commit order: the marker after it proves it was never sent.
    assert "rolled-back" not in heard_while(write_then_fail)

"""The hub: who hears a change (only those it concerns), across threads, within what caps, and what closing does.

Every test that waits for a wake-up waits with ``woken`` (tests/support/waiting.py), which asserts that it woke
well before its timeout: a missing wake-up fails the test instead of only slowing it down.
"""

import asyncio
import threading
import time

import pytest

from historyhub.live import Change, Changes, Closed, Interest, TooMany
from historyhub.live.subscriptions import Hub
from tests.support.waiting import PROMPT_SECONDS, WAKE_SECONDS, woken


class NoSignal:
    def stop(self):
        pass


@pytest.fixture
def hub():
    return Hub(lambda hub: NoSignal())


def action(session, call_id):
    return Interest(action=(session, call_id))


def test_a_decision_wakes_the_waiters_of_its_action_only(hub):
    async def scenario():
        async with (
            hub.listen(action("s", "c1")) as of_c1,
            hub.listen(action("s", "c2")) as of_c2,
            hub.listen(action("t", "c1")) as of_other_session,
        ):
            hub.publish([Change("s", actions=frozenset({"c1"}), inbox=True)])
            return await woken(of_c1), await of_c2.wait(0), await of_other_session.wait(0)

    heard_by_c1, heard_by_c2, heard_elsewhere = asyncio.run(scenario())

    assert heard_by_c1 == Changes(frozenset({"s"}))
    assert not heard_by_c2 and not heard_elsewhere


def test_an_append_to_a_session_wakes_no_waiter_of_its_actions(hub):
    async def scenario():
        async with hub.listen(action("s", "c1")) as waiter, hub.listen(Interest(session="s")) as page:
            hub.publish([Change("s")])
            return await woken(page), await waiter.wait(0)

    heard_by_page, heard_by_waiter = asyncio.run(scenario())

    assert heard_by_page.touches("s")
    assert not heard_by_waiter


def test_a_cleared_or_deleted_session_wakes_every_waiter_of_its_actions(hub):
    async def scenario():
        async with hub.listen(action("s", "c1")) as one, hub.listen(action("s", "c2")) as other:
            hub.publish([Change("s", all_actions=True, inbox=True)])
            return await woken(one), await woken(other)

    assert all(heard.touches("s") for heard in asyncio.run(scenario()))


def test_the_inbox_hears_what_waits_for_a_person_and_not_the_rest(hub):
    async def scenario():
        async with (
            hub.listen(Interest(inbox="default")) as inbox,
            hub.listen(Interest(project="default")) as everything,
        ):
            hub.publish([Change("s")])
            appended = await inbox.wait(0), await woken(everything)
            hub.publish([Change("t", actions=frozenset({"c"}), inbox=True)])
            return appended, await woken(inbox)

    (inbox_after_append, everything_after_append), inbox_after_decision = asyncio.run(scenario())

    assert not inbox_after_append and everything_after_append.touches("s")
    assert inbox_after_decision.touches("t")


def test_a_change_published_on_another_thread_wakes_a_subscriber(hub):
    async def scenario():
        async with hub.listen(Interest(session="a")) as changes:
            publisher = threading.Thread(target=hub.publish, args=([Change("a")],))
            publisher.start()
            heard = await woken(changes)
            publisher.join()
            return heard

    assert asyncio.run(scenario()).session_ids == {"a"}


def test_changes_heard_while_nobody_waited_are_kept_for_the_next_wait(hub):
    async def scenario():
        async with hub.listen(Interest(project="default")) as changes:
            hub.publish([Change("a")])
            hub.publish([Change("b")])
            return await changes.wait(0), await changes.wait(0)

    first, second = asyncio.run(scenario())

    assert first.session_ids == {"a", "b"}
    assert not second


def test_an_interrupted_signal_wakes_everyone_to_look_again(hub):
    async def scenario():
        async with hub.listen(action("a", "c1")) as changes:
            hub.publish_unknown()
            return await woken(changes)

    heard = asyncio.run(scenario())

    assert heard.unknown and heard.touches("anything")


def test_leaving_removes_the_subscription(hub):
    async def scenario():
        async with (
            hub.listen(Interest(session="a")),
            hub.listen(action("a", "c")),
            hub.listen(Interest(inbox="default")),
        ):
            assert hub.subscriber_count() == 3
        return hub.subscriber_count()

    assert asyncio.run(scenario()) == 0


def test_a_subscription_is_parked_only_while_it_waits_for_a_change(hub):
    async def scenario():
        async with hub.listen(action("s", "c")) as waiter:
            registered = hub.parked_count()
            waiting = asyncio.create_task(waiter.wait(WAKE_SECONDS))
            await asyncio.sleep(0)
            parked = hub.parked_count()
            hub.publish([Change("s", actions=frozenset({"c"}))])
            await waiting
            return registered, parked, hub.parked_count()

    # Registered, it still reads what it serves; waiting, it is parked; woken, it reads again.
    assert asyncio.run(scenario()) == (0, 1, 0)
    assert hub.parked_count() == 0


def test_an_owner_may_hold_as_many_subscriptions_as_its_limit_and_no_more(hub):
    async def scenario():
        async with (
            hub.listen(action("s", "c1"), owner="key 1", limit=2),
            hub.listen(action("s", "c2"), owner="key 1", limit=2),
        ):
            with pytest.raises(TooMany):
                async with hub.listen(action("s", "c3"), owner="key 1", limit=2):
                    pass
            async with hub.listen(action("s", "c3"), owner="key 2", limit=2):
                pass
        # Leaving gives the places back.
        async with (
            hub.listen(action("s", "c4"), owner="key 1", limit=2),
            hub.listen(action("s", "c5"), owner="key 1", limit=2),
        ):
            return hub.subscriber_count()

    assert asyncio.run(scenario()) == 2


def test_closing_ends_every_wait_and_turns_new_subscribers_away(hub):
    async def scenario():
        async with hub.listen(action("a", "c1")) as changes:
            hub.close()
            started = time.monotonic()
            with pytest.raises(Closed):
                await changes.wait(WAKE_SECONDS)
            assert time.monotonic() - started < PROMPT_SECONDS
        with pytest.raises(Closed):
            async with hub.listen(Interest(session="b")):
                pass

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "change",
    [
        Change("s 1"),
        Change("s", actions=frozenset({"call/1", "ünï\n", ""}), inbox=True),
        Change("s", all_actions=True, inbox=True),
    ],
)
def test_a_change_travels_between_processes_unchanged(change):
    assert Change.decode(change.encode()) == change


def test_a_change_naming_more_actions_than_a_notification_holds_wakes_every_waiter_of_the_session():
    many = frozenset(f"call-{number:0>190}" for number in range(100))

    decoded = Change.decode(Change("s", actions=many, inbox=True).encode())

    assert decoded.all_actions and decoded.inbox and decoded.touches_action("s", "anything")
    assert len(Change("s", actions=many).encode().encode()) < 8000


@pytest.mark.parametrize("payload", ["support-42", "[]", '{"x": 1}', '{"s": 3}', "{"])
def test_a_payload_that_is_not_a_change_is_refused(payload):
    with pytest.raises(ValueError):
        Change.decode(payload)


def test_a_change_of_one_project_reaches_no_page_of_another(hub):
    async def scenario():
        async with (
            hub.listen(Interest(project="default")) as default_pages,
            hub.listen(Interest(inbox="default")) as default_inbox,
            hub.listen(Interest(project="finance")) as finance_pages,
        ):
            hub.publish([Change("finance/support-42", actions=frozenset({"c1"}), inbox=True)])
            return await woken(finance_pages), await default_pages.wait(0), await default_inbox.wait(0)

    finance, default_pages, default_inbox = asyncio.run(scenario())

    assert finance.touches("finance/support-42")
    assert not default_pages and not default_inbox

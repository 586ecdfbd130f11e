"""The hub: who hears a change, across threads, and what closing does."""

import asyncio
import threading

import pytest

from historyhub.live import Changes, Closed
from historyhub.live.subscriptions import Hub


class NoSignal:
    def stop(self):
        pass


@pytest.fixture
def hub():
    return Hub(lambda hub: NoSignal())


def test_a_change_wakes_the_subscribers_of_its_session_and_of_every_session_only(hub):
    async def scenario():
        async with hub.listen("a") as of_a, hub.listen("b") as of_b, hub.listen() as of_all:
            hub.publish(("a",))
            return await of_a.wait(1), await of_b.wait(0), await of_all.wait(1)

    heard_by_a, heard_by_b, heard_by_all = asyncio.run(scenario())

    assert heard_by_a == Changes(frozenset({"a"}))
    assert not heard_by_b
    assert heard_by_all.session_ids == {"a"} and heard_by_all.touches("a") and not heard_by_all.touches("b")


def test_a_change_published_on_another_thread_wakes_a_subscriber(hub):
    async def scenario():
        async with hub.listen("a") as changes:
            publisher = threading.Thread(target=hub.publish, args=(("a",),))
            publisher.start()
            heard = await changes.wait(10)
            publisher.join()
            return heard

    assert asyncio.run(scenario()).session_ids == {"a"}


def test_changes_heard_while_nobody_waited_are_kept_for_the_next_wait(hub):
    async def scenario():
        async with hub.listen() as changes:
            hub.publish(("a",))
            hub.publish(("b",))
            return await changes.wait(0), await changes.wait(0)

    first, second = asyncio.run(scenario())

    assert first.session_ids == {"a", "b"}
    assert not second


def test_an_interrupted_signal_wakes_everyone_to_look_again(hub):
    async def scenario():
        async with hub.listen("a") as changes:
            hub.publish_unknown()
            return await changes.wait(1)

    heard = asyncio.run(scenario())

    assert heard.unknown and heard.touches("anything")


def test_leaving_removes_the_subscription(hub):
    async def scenario():
        async with hub.listen("a"), hub.listen():
            assert hub.subscriber_count() == 2
        return hub.subscriber_count()

    assert asyncio.run(scenario()) == 0


def test_closing_ends_every_wait_and_turns_new_subscribers_away(hub):
    async def scenario():
        async with hub.listen("a") as changes:
            hub.close()
            with pytest.raises(Closed):
                await changes.wait(10)
        with pytest.raises(Closed):
            async with hub.listen("b"):
                pass

    asyncio.run(scenario())

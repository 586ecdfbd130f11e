"""Fifty agents waiting for people in one event loop do not hold up another coroutine's calls."""

import asyncio
import statistics
import time
from asyncio import run

from tests.support.ids import unique

WAITS = 50
CALLS = 20


def test_fifty_waits_in_one_event_loop_leave_other_calls_fast(connect, capsys):
    session_id = unique("many-waits")

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            await client.create_session("support", session_id)
            for number in range(WAITS):
                await client.open_client_action(session_id, f"call_{number}", "issue_refund", {"n": number})
            waits = [
                asyncio.create_task(client.wait_for_client_action(session_id, f"call_{number}"))
                for number in range(WAITS)
            ]
            durations = []
            for _ in range(CALLS):
                started = time.perf_counter()
                await client.get_items(session_id)
                await client.get_session(session_id)
                durations.append(time.perf_counter() - started)
            still_waiting = sum(not wait.done() for wait in waits)
            for number in range(WAITS):
                await people.decide(session_id, f"call_{number}", "approve")
            return durations, still_waiting, await asyncio.gather(*waits)

    durations, still_waiting, decided = run(coroutine())
    assert still_waiting == WAITS
    assert [action["status"] for action in decided] == ["approved"] * WAITS
    with capsys.disabled():
        print(
            f"\n{WAITS} waits pending: {CALLS} rounds of get_items + get_session took "
            f"median {statistics.median(durations) * 1000:.0f} ms, max {max(durations) * 1000:.0f} ms"
        )

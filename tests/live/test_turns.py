"""Turns at the database for waits and live streams (historyhub.live.turns): a gate on the event loop in front of
the pool, handed out in order, resuming requests first; a request that gets none in time is 503 with Retry-After."""

import asyncio
import http.client
import json
import sqlite3
import threading

import pytest
from django.db import connection
from django.test import override_settings

from historyhub import live
from historyhub.apikeys.models import ApiKey, hash_key
from historyhub.live import turns
from tests.support.servers import InProcessServer
from tests.support.waiting import until


def run(coroutine):
    return asyncio.run(coroutine)


def test_turns_go_in_the_order_they_were_asked_for_and_resuming_requests_first():
    async def scenario():
        gate = turns.Gate(1)
        await gate.enter()
        order = []

        async def take(name, resuming=False):
            await gate.enter(resuming=resuming)
            order.append(name)
            gate.leave()

        arriving = [asyncio.create_task(take(f"new {n}")) for n in range(3)]
        await asyncio.sleep(0)
        resumed = asyncio.create_task(take("woken", resuming=True))
        await asyncio.sleep(0)
        assert gate.queued() == 4
        gate.leave()
        await asyncio.gather(*arriving, resumed)
        return order, gate

    order, gate = run(scenario())
    assert order == ["woken", "new 0", "new 1", "new 2"]
    assert (gate.busy, gate.queued()) == (0, 0)


@pytest.mark.parametrize(
    ("admitted", "queued", "retry_after"),
    [
        # Ten turns a second lately: 29 queued and the one asking again go through in 3 seconds.
        ([90 + n / 10 for n in range(101)], 29, 3),
        # A larger queue, a later retry; never past the clients' longest pause.
        ([90 + n / 10 for n in range(101)], 199, 20),
        ([90 + n / 10 for n in range(101)], 5000, 30),
        # A short queue at a fast pace: a second at least.
        ([90 + n / 100 for n in range(101)], 2, 1),
        # Only what the window holds counts: the turns before it were a different pace.
        ([10 + n / 100 for n in range(1000)] + [95, 100], 3, 20),
        # Turns stopped coming: as long as the request queued.
        ([], 40, 30),
        ([95], 40, 30),
    ],
)
def test_retry_after_is_how_long_the_queue_ahead_takes_at_the_latest_pace(admitted, queued, retry_after):
    assert turns.drain_estimate(admitted, queued, now=100, window=30) == retry_after


def test_a_request_without_a_turn_in_time_is_busy_and_leaves_the_queue_as_it_was():
    async def scenario():
        gate = turns.Gate(1)
        await gate.enter()
        with pytest.raises(turns.Busy):
            await gate.enter(timeout=0.05)
        assert (gate.busy, gate.queued()) == (1, 0)
        gate.leave()
        await gate.enter(timeout=0.05)
        return gate

    assert run(scenario()).busy == 1


def test_a_turn_handed_to_a_request_that_went_away_passes_on():
    async def scenario():
        gate = turns.Gate(1)
        await gate.enter()
        gone = asyncio.create_task(gate.enter())
        next_one = asyncio.create_task(gate.enter())
        await asyncio.sleep(0)
        gate.leave()  # the turn goes to ``gone``…
        gone.cancel()  # …which is cancelled before it runs: the turn goes on to the next
        with pytest.raises(asyncio.CancelledError):
            await gone
        await asyncio.wait_for(next_one, 5)
        return gate

    gate = run(scenario())
    assert (gate.busy, gate.queued()) == (1, 0)


def test_a_parked_request_holds_no_turn_and_takes_one_again_when_it_wakes():
    async def scenario():
        gate = turns.Gate(1)
        states = []
        async with _request_turn(gate):
            async with turns.away():
                states.append(gate.busy)
            states.append(gate.busy)
        states.append(gate.busy)
        return states

    assert run(scenario()) == [0, 1, 0]


def test_a_request_knows_how_long_it_queued_for_its_turn_so_a_wait_counts_it_against_its_own():
    async def scenario():
        gate = turns.Gate(1)
        await gate.enter()

        async def free_later():
            await asyncio.sleep(0.2)
            gate.leave()

        freeing = asyncio.create_task(free_later())
        outside = turns.queued()
        async with _request_turn(gate):
            inside = turns.queued()
        await freeing
        return outside, inside

    outside, inside = run(scenario())
    assert outside == 0.0
    # The turn was held for 0.2 s before it came: at least that long queued.
    assert inside >= 0.2


def _request_turn(gate):
    """``turns.turn()`` on a given gate."""
    turns._gates[asyncio.get_running_loop()] = gate
    return turns.turn()


# Over HTTP, on a server of this module's own whose event loop has a single turn.

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def one_turn_server(django_db_setup):
    with override_settings(LIVE_DATABASE_TURNS=1, LIVE_TURN_QUEUE_SECONDS=1), InProcessServer() as server:
        yield server


def api(server, key, method, path, body=None):
    link = http.client.HTTPConnection("127.0.0.1", int(server.url.rsplit(":", 1)[1]), timeout=60)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    try:
        link.request(method, f"/api/v1{path}", json.dumps(body) if body is not None else None, headers)
        response = link.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read() or b"null")
    finally:
        link.close()


def one_turn_gate_busy():
    return any(gate.size == 1 and gate.busy == 1 for gate in list(turns._gates.values()))


def open_actions(server, key, count):
    assert api(server, key, "POST", "/sessions", {"sessionId": "turns", "agent": "supportAgent"})[0] == 201
    for number in range(count):
        body = {"callId": f"c{number}", "name": "refund", "arguments": {}}
        assert api(server, key, "POST", "/sessions/turns/client-actions", body)[0] == 201


def test_more_waits_than_turns_are_all_held_and_each_answered_with_its_decision(one_turn_server, decide_key):
    key = ApiKey.issue("waiter", "write")[1]
    open_actions(one_turn_server, key, 8)
    answers = {}

    def wait(number):
        answers[number] = api(one_turn_server, key, "GET", f"/sessions/turns/client-actions/c{number}?wait=30")

    waiters = [threading.Thread(target=wait, args=(number,)) for number in range(8)]
    for waiter in waiters:
        waiter.start()
    # Eight held at once through one turn: a parked wait gives its turn back.
    until(lambda: live.hub.subscriber_count() >= 8, 30, "eight waits held")
    for number in range(8):
        path = f"/sessions/turns/client-actions/c{number}/decision"
        assert api(one_turn_server, decide_key, "POST", path, {"decision": "approve"})[0] == 200
    for waiter in waiters:
        waiter.join(60)
    seen = {number: (status, body["status"]) for number, (status, _, body) in answers.items()}
    assert seen == dict.fromkeys(range(8), (200, "approved"))


def test_a_wait_that_gets_no_turn_in_time_is_503_with_retry_after_and_the_one_ahead_is_answered(
    one_turn_server, decide_key
):
    key = ApiKey.issue("waiter", "write")[1]
    open_actions(one_turn_server, key, 2)
    answers = {}
    blocker = block_writes(key)
    try:
        # The first wait takes the only turn and blocks in the database, taking its place.
        first = threading.Thread(
            target=lambda: answers.setdefault(
                "first", api(one_turn_server, key, "GET", "/sessions/turns/client-actions/c0?wait=30")
            )
        )
        first.start()
        until(one_turn_gate_busy, 30, "the first wait's turn")
        status, headers, body = api(one_turn_server, key, "GET", "/sessions/turns/client-actions/c1?wait=30")
    finally:
        blocker()
    # No pace measured (one turn handed out, then none for the queue's second): as long as it queued.
    assert (status, body["error"]["code"], headers["retry-after"]) == (503, "service_unavailable", "1")
    api(one_turn_server, decide_key, "POST", "/sessions/turns/client-actions/c0/decision", {"decision": "approve"})
    first.join(60)
    assert (answers["first"][0], answers["first"][2]["status"]) == (200, "approved")


def block_writes(key):
    """Block taking a wait's place for ``key`` until the returned function is called: its advisory lock on
    PostgreSQL, the write lock on SQLite."""
    api_key = ApiKey.objects.get(key_hash=hash_key(key))
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            owner = f"historyhub hold waits key:('key', {api_key.pk})"
            cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [owner])

        def unblock():
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock_all()")

        return unblock
    writer = sqlite3.connect(connection.settings_dict["NAME"], timeout=30, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    return lambda: (writer.rollback(), writer.close())

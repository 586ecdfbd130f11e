"""Three app servers behind HAProxy, PgBouncer, a primary and a streaming standby behave as one installation
(docs/scaling.md). The tests run in this order: the last kills a server."""

import contextlib
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from deploy.cluster import POOL_SIZE
from tests.cluster.support import HELD_WAITS, api, unique
from tests.support.waiting import until

pytestmark = pytest.mark.cluster

# A wake-up across servers: the write's NOTIFY reaches the other server through the primary. Far below the
# waits' own 30 s, so a wake-up is told from a timeout; not tighter, on a machine shared with other work.
WAKE_SECONDS = 3


def open_action(base, key, session_id, call_id, **fields):
    # The session first (an append makes it); then the action in it.
    assert api(base, "POST", f"/sessions/{session_id}/items", key, {"items": [{"role": "user"}]}).status_code == 200
    body = {"callId": call_id, "name": "refund", "arguments": {"amount": 5}, **fields}
    answer = api(base, "POST", f"/sessions/{session_id}/client-actions", key, body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_decision_through_one_server_wakes_a_waiter_held_by_another(cluster):
    a, c = cluster.server(1), cluster.server(3)
    session_id = unique("wake")
    open_action(a, cluster.agent_key, session_id, "call-1")
    waiting_before = cluster.details(3)["subscribers"]
    answered = {}

    def wait_on_c():
        answer = api(c, "GET", f"/sessions/{session_id}/client-actions/call-1?wait=30", cluster.agent_key)
        answered.update(status=answer.status_code, body=answer.json(), at=time.monotonic())

    waiter = threading.Thread(target=wait_on_c)
    waiter.start()
    until(lambda: cluster.details(3)["subscribers"] > waiting_before, message="the wait registered on server C")
    decided_at = time.monotonic()
    decision = api(a, "POST", f"/sessions/{session_id}/client-actions/call-1/decision", cluster.people_key,
                   {"decision": "approve"})  # fmt: skip
    assert decision.status_code == 200, decision.text
    waiter.join(35)
    assert answered["status"] == 200
    assert answered["body"]["status"] == "approved"
    assert answered["at"] - decided_at < WAKE_SECONDS, "the waiter on C answered when its wait ran out, not at once"


# HELD_WAITS: waits of one key held at once behind the balancer, a hundred a server (six times each process's
# pool, sixteen times its turns at the database: historyhub.live.turns), filling the key's places. Opened together,
# they once kept every pooled connection busy for longer than the balancer's health check waited: HAProxy took each
# server out and cut every wait it held (docs/scaling.md, "The balancer").
OPENING_THREADS = 6


def test_a_keys_waits_fill_its_places_across_servers_and_each_is_answered_with_a_decision_made_through_another(
    cluster,
):
    key = cluster.manage("createapikey", unique("waiter"), "--scope", "write").strip()
    label = unique("many")
    actions = [(f"{label}-{number % 30}", f"call-{number}") for number in range(HELD_WAITS)]
    for session_id in sorted({session_id for session_id, _ in actions}):
        assert api(cluster.url, "POST", f"/sessions/{session_id}/items", key, {"items": [{"n": 1}]}).status_code == 200

    def open_one(action):
        body = {"callId": action[1], "name": "refund", "arguments": {}}
        return api(cluster.url, "POST", f"/sessions/{action[0]}/client-actions", key, body).status_code

    with ThreadPoolExecutor(OPENING_THREADS) as opening:
        assert set(opening.map(open_one, actions)) == {201}
    held_before = [cluster.details(number)["subscribers"] for number in (1, 2, 3)]
    answered = {}

    def wait(number):
        session_id, call_id = actions[number]
        try:
            answer = api(cluster.url, "GET", f"/sessions/{session_id}/client-actions/{call_id}?wait=60", key)
        except requests.RequestException as error:
            answered[number] = (type(error).__name__, None, None)
            return
        json_body = answer.headers.get("Content-Type", "").startswith("application/json")
        status = answer.json().get("status") if json_body else answer.text[:80]
        answered[number] = (answer.status_code, status, answer.headers.get("X-Served-By"))

    waiters = [threading.Thread(target=wait, args=(number,)) for number in range(HELD_WAITS)]
    for waiter in waiters:
        waiter.start()

    def held():
        return [cluster.details(n)["subscribers"] - held_before[n - 1] for n in (1, 2, 3)]

    until(lambda: sum(held()) >= HELD_WAITS or answered, seconds=60, message="every wait held")
    assert not answered, f"waits answered before any decision: {sorted(set(answered.values()))[:5]}"
    assert all(count > POOL_SIZE for count in held()), held()
    # The key's places are all taken, on whichever server.
    for number in (1, 2, 3):
        more = api(cluster.server(number), "GET", f"/sessions/{label}-0/client-actions/call-0?wait=20", key)
        assert more.status_code == 429, more.text
    # Each decided through the next server in turn: two in three through a server other than the waiter's.
    for number, (session_id, call_id) in enumerate(actions):
        path = f"/sessions/{session_id}/client-actions/{call_id}/decision"
        decision = api(cluster.server(number % 3 + 1), "POST", path, cluster.people_key, {"decision": "approve"})
        assert decision.status_code == 200, decision.text
    for waiter in waiters:
        waiter.join(70)
    assert len(answered) == HELD_WAITS
    assert sorted({answer[:2] for answer in answered.values()}) == [(200, "approved")]
    across = [number for number, answer in answered.items() if answer[2] != f"app{number % 3 + 1}"]
    assert len(across) > HELD_WAITS / 2, "most waiters were woken by a decision made through another server"


def test_a_live_page_on_one_server_hears_a_change_written_through_another(cluster):
    a, b = cluster.server(1), cluster.server(2)
    session_id = unique("live")
    assert api(a, "POST", f"/sessions/{session_id}/items", cluster.agent_key, {"items": [{"n": 1}]}).status_code == 200
    person = cluster.person(b)
    heard = []
    stream = person.get(f"{b}/p/default/live/?session={session_id}", stream=True, timeout=30)
    assert stream.status_code == 200

    def read_events():
        # A byte at a time: an event is a few bytes, and a larger chunk would wait for more. The test closes
        # the stream under this loop when it is done (urllib3 then has no body left to read from).
        with contextlib.suppress(AttributeError, requests.RequestException):
            for line in stream.iter_lines(chunk_size=1, decode_unicode=True):
                if line == "event: session":
                    heard.append(time.monotonic())

    threading.Thread(target=read_events, daemon=True).start()
    # A stream opens with "look again" (whatever changed before it listened: docs/live-updates.md); after that
    # only a change to this session says "session".
    until(lambda: len(heard) >= 1, message="the stream's opening event")
    written_at = time.monotonic()
    appended = api(a, "POST", f"/sessions/{session_id}/items", cluster.agent_key, {"items": [{"n": 2}]})
    assert appended.status_code == 200, appended.text
    until(lambda: len(heard) >= 2, seconds=WAKE_SECONDS, message="the page on B hearing the write through A")
    assert heard[1] - written_at < WAKE_SECONDS
    stream.close()


class Receiver(ThreadingHTTPServer):
    """A webhook consumer that answers 200 to everything and records each request it got."""

    def __init__(self):
        self.received = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), ReceiverHandler)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/hook"

    def events(self):
        with self.lock:
            return list(self.received)


class ReceiverHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.received.append((self.headers["webhook-id"], body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


def test_workers_and_sweeps_on_every_server_send_each_notification_once_and_expire_each_action_once(cluster):
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    admin_key = cluster.manage("createapikey", unique("channels"), "--scope", "admin").strip()
    channel = api(cluster.url, "POST", "/channels", admin_key, {
        "kind": "webhook", "name": unique("hook"), "url": receiver.url,
        "events": ["client_action.opened", "client_action.expired"],
    })  # fmt: skip
    assert channel.status_code == 201, channel.text
    session_id = unique("expiry")
    expires_at = (datetime.now(UTC) + timedelta(seconds=3)).isoformat()
    calls = [f"call-{number}" for number in range(12)]
    for number, call_id in enumerate(calls):
        # Opened through each server in turn.
        open_action(cluster.server(number % 3 + 1), cluster.agent_key, session_id, call_id, expiresAt=expires_at)

    def mine():
        return [(hook_id, body) for hook_id, body in receiver.events() if body["data"]["sessionId"] == session_id]

    until(lambda: len(mine()) >= 2 * len(calls), seconds=60, message="every opening and expiry delivered")
    deliveries = api(cluster.url, "GET", f"/channels/{channel.json()['channelId']}/deliveries?pageSize=100", admin_key)
    assert deliveries.status_code == 200
    received = mine()
    receiver.shutdown()
    # Each delivery was attempted once and arrived once: no worker sent what another had claimed.
    assert sorted(hook_id for hook_id, _ in received) == sorted({hook_id for hook_id, _ in received})
    assert all(len(delivery["attempts"]) == 1 for delivery in deliveries.json()["items"])
    # Each action opened once and expired once, though three sweeps looked for it every second.
    by_event = sorted((body["type"], body["data"]["callId"]) for _, body in received)
    expected = [("client_action.expired", call_id) for call_id in calls]
    expected += [("client_action.opened", call_id) for call_id in calls]
    assert by_event == sorted(expected)
    for call_id in calls:
        action = api(cluster.url, "GET", f"/sessions/{session_id}/client-actions/{call_id}", cluster.agent_key)
        assert action.json()["status"] == "expired"


def session_rows_read(cluster, where):
    """How often the history_session table was read on the primary or the standby (its statistics)."""
    return int(cluster.sql(where, "SELECT COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) FROM pg_stat_user_tables "
                                  "WHERE relname = 'history_session'"))  # fmt: skip


def test_the_session_list_reads_the_replica_and_a_lagging_or_dead_replica_degrades_to_the_primary(cluster):
    b = cluster.server(2)
    person = cluster.person(b)
    assert cluster.details(2)["replica"]["usable"] is True
    # Logging in is a write: for DATABASE_REPLICA_PIN_SECONDS the person reads the primary, on any server.
    assert "hh_primary" in person.cookies
    read_before = session_rows_read(cluster, cluster.state.primary)
    assert person.get(f"{cluster.server(3)}/p/default/", timeout=10).status_code == 200
    until(lambda: session_rows_read(cluster, cluster.state.primary) > read_before, message="a read on the primary")
    # Once the pin's cookie has gone (as the browser drops it when its time is up), the list reads the standby.
    del person.cookies["hh_primary"]
    read_before = session_rows_read(cluster, cluster.state.standby)
    assert person.get(f"{b}/p/default/", timeout=10).status_code == 200
    until(lambda: session_rows_read(cluster, cluster.state.standby) > read_before, message="a read on the standby")

    # Lagging: replay paused, a new session written; once the lag passes its limit the page reads the primary.
    cluster.sql(cluster.state.standby, "SELECT pg_wal_replay_pause()")
    try:
        lagging = unique("lagging")
        appended = api(cluster.url, "POST", f"/sessions/{lagging}/items", cluster.agent_key, {"items": [{"n": 1}]})
        assert appended.status_code == 200
        until(lambda: not cluster.details(2)["replica"]["usable"], message="the replica's lag seen")
        assert cluster.details(2)["replica"]["lagSeconds"] > 1
        until(lambda: lagging in person.get(f"{b}/p/default/", timeout=10).text, message="the new session listed")
    finally:
        cluster.sql(cluster.state.standby, "SELECT pg_wal_replay_resume()")
    until(lambda: cluster.details(2)["replica"]["usable"], message="the replica caught up")

    # Dead: the standby stopped; the page answers from the primary, at once and every time.
    standby = cluster.standby()
    standby.stop(mode="immediate")
    try:
        dead = unique("dead")
        assert api(cluster.url, "POST", f"/sessions/{dead}/items", cluster.agent_key, {"items": []}).status_code == 200
        for _ in range(5):
            page = person.get(f"{b}/p/default/", timeout=10)
            assert page.status_code == 200
            assert dead in page.text
        details = cluster.details(2)["replica"]
        assert details["usable"] is False
        assert details["lagSeconds"] is None
    finally:
        standby.start()
    until(lambda: cluster.details(2)["replica"]["usable"], seconds=30, message="the standby back")


def test_the_cap_on_streams_holds_for_the_installation(cluster):
    # (The cap on a key's waits: the test of many waits above fills it across the servers.)
    person = cluster.person(cluster.server(1))
    streams = [person.get(f"{cluster.server(n)}/p/default/live/", stream=True, timeout=30) for n in (1, 2, 3)]
    assert [stream.status_code for stream in streams] == [200, 200, 200]
    refused = person.get(f"{cluster.server(2)}/p/default/live/", stream=True, timeout=30)
    assert refused.status_code == 429
    streams[0].close()
    # A page closed on server 1 frees a place on server 2.
    until(lambda: person.get(f"{cluster.server(2)}/p/default/live/", stream=True, timeout=30).status_code == 200,
          message="a place once a page closed")  # fmt: skip


def test_killing_a_server_loses_no_acknowledged_write_and_its_clients_retry_on_the_others(cluster):
    session_id = unique("killed")
    acknowledged, served_by = [], []
    stop = threading.Event()

    def agent(name):
        number = 0
        while not stop.is_set():
            number += 1
            token = f"{name}-{number}"
            # A keyed write, sent again until answered: the balancer may lose it with the server it was on.
            while True:
                try:
                    answer = api(cluster.url, "POST", f"/sessions/{session_id}/items", cluster.agent_key,
                                 {"items": [{"id": token}]}, **{"Idempotency-Key": token})  # fmt: skip
                except requests.ConnectionError:
                    continue
                if answer.status_code == 200:
                    acknowledged.append(token)
                    served_by.append((time.monotonic(), answer.headers.get("X-Served-By")))
                    break
                assert answer.status_code in (502, 503, 504), answer.text

    agents = [threading.Thread(target=agent, args=(f"agent{number}",)) for number in range(4)]
    for thread in agents:
        thread.start()
    until(lambda: {name for _, name in served_by} >= {"app1", "app2", "app3"}, message="all three servers answer")
    cluster.kill_server(2)
    killed_at = time.monotonic()
    until(lambda: len([1 for at, _ in served_by if at > killed_at + 3]) >= 40, seconds=60, message="writes go on")
    stop.set()
    for thread in agents:
        thread.join(70)
    # Once the balancer has seen it gone (two failed checks a second apart), nothing is sent to it.
    assert all(name != "app2" for at, name in served_by if at > killed_at + 3)
    stored = api(cluster.url, "GET", f"/sessions/{session_id}/items", cluster.agent_key).json()["items"]
    stored_ids = [item["id"] for item in stored]
    assert len(stored_ids) == len(set(stored_ids)), "a retried write was stored twice"
    assert set(acknowledged) <= set(stored_ids), "an acknowledged write was lost"

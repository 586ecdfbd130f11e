"""One app server against three behind HAProxy, on the same PostgreSQL, PgBouncer and standby (docs/scaling.md).

    make bench-cluster                                  # 60 s a side, 10,000 waits over 1,000 sessions
    make bench-cluster BENCH_ARGS="--seconds 30 --waits 2000 --sessions 200 --writers 6"

It starts ``make cluster``'s deployment (deploy/cluster) with 1 worker per
server, then runs the same load twice, first against app server 1 alone, then
against the balancer:

- ``--waits`` client actions, spread over ``--sessions`` sessions, each waited on
  (``?wait=60``, asked again while it is still waiting, or after a 502/503/504 as
  HistoryHub's clients do) by a thread of its own; the waits are spread over API
  keys, ``--waits-per-key`` a key (a key's places are taken one at a time, under
  its lock: docs/live-updates.md);
- ``--writers`` processes appending 3-item batches as fast as they can;
- a probe reading a session's items every 50 ms (an unrelated request);
- every ``--decision-pause`` seconds a decision on one waited action, made through
  the next server in turn (behind the balancer the waiter is usually held by
  another server).

It prints writes/s, the probe's p50/p99, decision → answer p50/p99, the replica's
largest lag, how each wait was answered, and the CPU each part used (cores: CPU
seconds / wall seconds), so the busiest one shows what saturates first. Not a
test: nothing fails on a number. The cluster is removed afterwards.
"""

import argparse
import http.client
import json
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.production import manage  # noqa: E402
from deploy import cluster as deployment  # noqa: E402

PROBE_PAUSE = 0.05
# A wait answered one of these is asked again after the server's Retry-After (5 s) and a little jitter.
RETRIED = {502, 503, 504}
RETRY_SECONDS = 5
# Threads that open the actions, and that reject the undecided ones afterwards.
SETUP_THREADS = 8
# Each waiting thread blocks in a socket: a small stack lets thousands of them fit.
WAITER_STACK_BYTES = 256 * 1024


class Http:
    """One keep-alive connection to ``base``, JSON in and out, with the key's Authorization."""

    def __init__(self, base, key, timeout=70):
        parts = urlsplit(base)
        self.host, self.port, self.key, self.timeout = parts.hostname, parts.port, key, timeout
        self.connection = None

    def request(self, method, path, body=None):
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                headers = {"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"}
                self.connection.request(method, f"/api/v1{path}", json.dumps(body) if body else None, headers)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def writer(base, key, name, seconds, counts):
    client = Http(base, key)
    deadline = time.monotonic() + seconds
    written = 0
    while time.monotonic() < deadline:
        items = [{"role": "user", "content": f"{name} {written} {n}"} for n in range(3)]
        status, _ = client.request("POST", f"/sessions/bench-writer-{name}/items", {"items": items})
        if status == 200:
            written += 1
    counts.put(written)


def percentile(values, share):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def cpu_seconds(pids):
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def processes(state):
    """The pids of each part: every process in each app server's group, PostgreSQL's, PgBouncer's, HAProxy's."""
    parts = {f"app server {n}": [] for n in range(1, len(state.servers) + 1)}
    parts.update({"primary": [], "standby": [], "pgbouncer": [], "haproxy": []})
    groups = {server["pid"]: f"app server {n}" for n, server in enumerate(state.servers, 1)}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            group = os.getpgid(pid)
        except (OSError, ProcessLookupError):
            continue
        if group in groups:
            parts[groups[group]].append(pid)
        elif group in state.haproxy.get("pids", [state.haproxy["pid"]]):
            parts["haproxy"].append(pid)
        elif command.startswith("pgbouncer") and ("hh-pgbouncer" in command):
            parts["pgbouncer"].append(pid)
        elif "postgres" in command and state.primary["folder"] in command:
            parts["primary"].extend([pid, *children(pid)])
        elif "postgres" in command and state.standby["folder"] in command:
            parts["standby"].extend([pid, *children(pid)])
    return parts


def children(pid):
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def run(state, target, servers, keys, options):
    """The load against ``target``; decisions go through ``servers`` in turn. Returns the row of the table."""
    agent, people = state.keys["agent"], state.keys["people"]
    label = f"bench-{int(time.time() * 1000)}"
    actions = [(f"{label}-s{number % options.sessions}", f"c{number}") for number in range(options.waits)]
    setup = threading.local()

    def client(key):
        if getattr(setup, "client", None) is None:
            setup.client = Http(target, key)
        return setup.client

    def open_session(session_id):
        client(agent).request("POST", f"/sessions/{session_id}/items", {"items": [{"role": "user", "content": "go"}]})

    def open_action(number):
        session_id, call_id = actions[number]
        body = {"callId": call_id, "name": "refund", "arguments": {"n": number}}
        return client(agent).request("POST", f"/sessions/{session_id}/client-actions", body)[0]

    with ThreadPoolExecutor(SETUP_THREADS) as opening:
        list(opening.map(open_session, sorted({session_id for session_id, _ in actions})))
        opened = Counter(opening.map(open_action, range(len(actions))))
    answered, retries = {}, []
    ended = threading.Event()

    def wait(number):
        session_id, call_id = actions[number]
        client = Http(target, keys[number // options.waits_per_key])
        while True:
            try:
                status, body = client.request("GET", f"/sessions/{session_id}/client-actions/{call_id}?wait=60")
            except (OSError, http.client.HTTPException) as error:
                answered[(session_id, call_id)] = (type(error).__name__, time.monotonic())
                return
            if status in RETRIED and not ended.is_set():
                # As HistoryHub's clients do: the server is busy (its pool, the balancer), ask again after a while.
                retries.append(status)
                time.sleep(RETRY_SECONDS + random.random())
                continue
            decided = status == 200 and json.loads(body)["status"] != "waiting"
            if decided or status != 200 or ended.is_set():
                outcome = json.loads(body)["status"] if decided else status
                answered[(session_id, call_id)] = (outcome, time.monotonic())
                return

    # Counted before the first waiter starts: the first ones are held at once.
    held_before = held(state)
    threading.stack_size(WAITER_STACK_BYTES)
    waiters = [threading.Thread(target=wait, args=(number,), daemon=True) for number in range(len(actions))]
    for waiter in waiters:
        waiter.start()
    threading.stack_size(0)
    held_after = wait_until_held(state, held_before, len(actions), answered)
    pids = processes(state)
    before = {part: cpu_seconds(ids) for part, ids in pids.items()}
    started = time.monotonic()
    context = multiprocessing.get_context("spawn")
    counts = context.Queue()
    writers = [context.Process(target=writer, args=(target, agent, f"{label}-{n}", options.seconds, counts))
               for n in range(options.writers)]  # fmt: skip
    for process in writers:
        process.start()
    probe_times, decided, lags = [], {}, []
    probe_failures = decision_failures = 0
    probe = Http(target, agent, timeout=10)
    deciders = [Http(server, people) for server in servers]
    next_probe = next_decision = next_lag = time.monotonic()
    turn = 0
    while time.monotonic() - started < options.seconds:
        now = time.monotonic()
        if now >= next_probe:
            began = time.monotonic()
            try:
                probe.request("GET", f"/sessions/{actions[0][0]}/items?limit=10")
            except (OSError, http.client.HTTPException):
                # Unanswered within its 10 s (twice): counted at the time it took, and apart.
                probe_failures += 1
            probe_times.append(time.monotonic() - began)
            next_probe = began + PROBE_PAUSE
        if now >= next_decision and turn < len(actions):
            session_id, call_id = actions[turn]
            # One whose wait already ended otherwise (an error) is counted among the answers, not decided.
            if (session_id, call_id) not in answered:
                decided[(session_id, call_id)] = time.monotonic()
                path = f"/sessions/{session_id}/client-actions/{call_id}/decision"
                try:
                    deciders[turn % len(deciders)].request("POST", path, {"decision": "approve"})
                except (OSError, http.client.HTTPException):
                    # Not made (its answer never came): its waiter is not counted among the decided.
                    decided.pop((session_id, call_id))
                    decision_failures += 1
            turn += 1
            next_decision = now + options.decision_pause
        if now >= next_lag:
            lags.append(replica_lag(state))
            next_lag = now + 1
        time.sleep(0.005)
    written = sum(counts.get(timeout=120) for _ in writers)
    wall = time.monotonic() - started
    for process in writers:
        process.join(30)
    after = {part: cpu_seconds(ids) for part, ids in pids.items()}
    ended.set()

    def reject(action):
        session_id, call_id = action
        path = f"/sessions/{session_id}/client-actions/{call_id}/decision"
        client(people).request("POST", path, {"decision": "reject"})

    with ThreadPoolExecutor(SETUP_THREADS) as rejecting:
        list(rejecting.map(reject, actions[turn:]))
    for waiter in waiters:
        waiter.join(70)
    # Only waits answered with their decision: one answered otherwise (429, 5xx, its time up) is counted apart.
    wakes = [answered[action][1] - at for action, at in decided.items() if answered.get(action, ("",))[0] == "approved"]
    answers = Counter(str(status) for status, _ in answered.values())
    missed = len(decided) - len(wakes)
    known_lags = [lag for lag in lags if lag is not None]
    return {
        "writes/s (3-item appends)": written / wall,
        "probe p50 ms": 1000 * percentile(probe_times, 0.5),
        "probe p99 ms": 1000 * percentile(probe_times, 0.99),
        "probes unanswered (10 s, twice)": probe_failures,
        "decisions unanswered (70 s, twice)": decision_failures,
        "decision → answer p50 ms": 1000 * percentile(wakes, 0.5),
        "decision → answer p99 ms": 1000 * percentile(wakes, 0.99),
        "decisions whose waiter was not answered with it": missed,
        "replica lag max s": max(known_lags) if known_lags else float("nan"),
        "seconds until every wait was held": held_after,
        "waits asked again after a 502/503/504": len(retries),
        "waits' answers": {**({f"opening {k}": v for k, v in opened.items() if k != 201}), **answers},
        "cores used": {part: (after[part] - before[part]) / wall for part in pids if after[part] - before[part] > 0},
    }


def held(state):
    """The waits (and streams) the servers hold now, by their /healthz/details."""
    return sum(subscribers(server["port"]) for server in state.servers)


def wait_until_held(state, before, count, answered, patience=300):
    """Seconds until the servers hold ``count`` more waits than ``before``, less those already answered (refused,
    failed), or ``patience``."""
    began = time.monotonic()
    while time.monotonic() - began < patience:
        if held(state) - before >= count - len(answered):
            break
        time.sleep(0.5)
    return time.monotonic() - began


def subscribers(port):
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/healthz/details")
        return json.loads(connection.getresponse().read())["subscribers"]
    except (OSError, ValueError, KeyError):
        return 0


def replica_lag(state):
    try:
        connection = http.client.HTTPConnection("127.0.0.1", state.servers[0]["port"], timeout=5)
        connection.request("GET", "/healthz/details")
        return (json.loads(connection.getresponse().read())["replica"] or {}).get("lagSeconds")
    except (OSError, ValueError, KeyError):
        return None


def table(rows):
    names = list(rows)
    lines = ["| | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for measure in next(iter(rows.values())):
        if measure in ("cores used", "waits' answers"):
            continue
        lines.append(f"| {measure} | " + " | ".join(f"{rows[name][measure]:.1f}" for name in names) + " |")
    for name in names:
        answers = rows[name]["waits' answers"]
        lines.append(f"| waits' answers, {name} | {answers} |")
    for name in names:
        used = sorted(rows[name]["cores used"].items(), key=lambda part: -part[1])
        lines.append(f"| cores used, {name} | " + ", ".join(f"{part} {cores:.2f}" for part, cores in used) + " |")
    return "\n".join(lines)


def make_keys(state, count):
    """``count`` agents' API keys (write), made in one ``manage.py shell`` on the primary."""
    code = (
        "from historyhub.apikeys.models import ApiKey\n"
        f"for number in range({count}):\n"
        "    print(ApiKey.issue(f'bench waiter {number}', 'write')[1])"
    )
    return manage(state.environment, "shell", "--no-imports", "-c", code).split()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60, help="how long the writers write, each side")
    parser.add_argument("--waits", type=int, default=10_000, help="client actions waited on at once")
    parser.add_argument("--sessions", type=int, default=1_000, help="the sessions the waited actions are in")
    parser.add_argument("--waits-per-key", type=int, default=100, help="waits per API key")
    parser.add_argument("--writers", type=int, default=8, help="processes appending as fast as they can")
    parser.add_argument("--decision-pause", type=float, default=0.2, help="seconds between decisions")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hh-bench-cluster-")) / "deployment"
    # Room for a wait asked again the moment its last one ended: the place of that one is given back on a thread.
    limit = str(2 * options.waits_per_key)
    state = deployment.start(folder, servers=3, workers=1, API_RATE_LIMITS="", HISTORYHUB_MAX_WAITS_PER_KEY=limit)
    try:
        keys = make_keys(state, -(-options.waits // options.waits_per_key))
        servers = [f"http://127.0.0.1:{server['port']}" for server in state.servers]
        rows = {
            "1 server": run(state, servers[0], servers[:1], keys, options),
            "3 servers behind HAProxy": run(state, state.url, servers, keys, options),
        }
    finally:
        deployment.stop(folder)
    load = os.getloadavg()
    print(
        f"{options.waits} waits over {options.sessions} sessions ({options.waits_per_key} a key), "
        f"{options.writers} writers, {options.seconds:.0f} s a side, {os.cpu_count()} cores, "
        f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    print(table(rows))


if __name__ == "__main__":
    main()

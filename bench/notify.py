"""Notifications on PostgreSQL with bin/start: how soon a webhook arrives, how fast a burst drains, what a
killed worker costs, and the retry schedule (docs/notifications.md, "Measured").

1. latency: ACTIONS actions opened one after another; for each, the time from the API's answer (the commit
   is before it) to the webhook's arrival at a local receiver: p50 and p99.
2. burst: EVENTS actions opened by 16 clients at once, to 3 webhook channels; throughput of deliveries.
3. kill: the same burst with every worker SIGKILLed mid-way and a new one started: every event must arrive;
   duplicates (the same webhook-id again, at least once) are counted.
4. retries: a receiver answering 500 then 200, with WEBHOOK_RETRY_DELAYS=1,2: the gap it saw.
5. isolation: 20 healthy webhook channels across 4 projects, each its own receiver; open → received p50/p99 of
   their deliveries alone, then again beside a receiver that answers ``HTTP/1.1 200 OK`` and drips a byte every
   5 s and one that never answers, both kept busy with deliveries of their own (docs/notifications.md, "One
   destination never delays another").
Prints a table for the README; asserts nothing (the machine is shared and noisy).

    .venv/bin/python bench/notify.py                         # 1,000 actions; bursts of 10,000 events
    .venv/bin/python bench/notify.py --actions 100 --events 1000
    .venv/bin/python bench/notify.py --only isolation --rounds 100
PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/historyhub_bench_notify), dropped
and created afresh.
"""

import argparse
import asyncio
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.server import free_port  # noqa: E402
from bench.waits import PYTHON, ROOT, Http, environment, fresh_postgres, healthy, percentile  # noqa: E402

DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/historyhub_bench_notify"
CLIENTS = 16
CHANNELS = 3
ISOLATION_PROJECTS = 4
ISOLATION_CHANNELS = 20
BAD_DELIVERIES = 6
MEASURES = ("retries", "latency", "burst", "kill", "isolation")


class Receiver:
    """A local webhook receiver: records (webhook-id, callId, arrival time); answers from ``statuses`` first."""

    def __init__(self, statuses=()):
        self.arrivals = []
        self.statuses = list(statuses)
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.arrivals.append((self.headers["webhook-id"], body["data"]["callId"], time.time()))
                    status = outer.statuses.pop(0) if outer.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Installation:
    """bin/start on a fresh PostgreSQL database, with an admin key and an agent's key."""

    def __init__(self, url, data_dir, **extra):
        fresh_postgres(url)
        self.port = free_port()
        self.env = {
            **environment(url, data_dir),
            "BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": "2",
            "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "True",
            "API_RATE_LIMITS": "",
            **extra,
        }
        self.run("migrate", "--noinput")
        self.admin_key = self.run("createapikey", "bench admin", "--scope", "admin")
        self.key = self.run("createapikey", "bench agent", "--scope", "write")
        self.log = open(data_dir / "server.log", "w")  # noqa: SIM115 - closed in stop()
        self.server = subprocess.Popen(
            [str(ROOT / "bin" / "start")], cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.extra_workers = []
        deadline = time.monotonic() + 90
        while not healthy(self.port):
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"bin/start did not come up: {(data_dir / 'server.log').read_text()[-2000:]}")
            time.sleep(0.2)

    def run(self, *command):
        return subprocess.run(
            [PYTHON, "manage.py", *command], cwd=ROOT, env=self.env, check=True, capture_output=True, text=True
        ).stdout.strip()

    def workers(self):
        """The pids of every `manage.py deliver` running for this installation."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if b"deliver" in command and f"BIND=127.0.0.1:{self.port}".encode() in environ:
                found.append(int(entry.name))
        return found

    def start_worker(self):
        self.extra_workers.append(
            subprocess.Popen(
                [PYTHON, "manage.py", "deliver"], cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
            )
        )

    def stop(self):
        for worker in self.extra_workers:
            worker.terminate()
            worker.wait(30)
        self.server.terminate()
        self.server.wait(60)
        self.log.close()


async def channel(install, url, name):
    """A webhook channel for the sessions of agent ``name`` only: each measure hears its own events."""
    admin = Http(install.port, install.admin_key)
    body = {"kind": "webhook", "name": name, "events": ["client_action.opened"], "url": url, "agents": [name]}
    status, content = await admin.request("POST", "/api/v1/channels", body)
    await admin.close()
    assert status == 201, content


async def open_actions(install, agent, prefix, count, concurrency=1):
    """Open ``count`` actions, each in a session of its own of ``agent`` (as agents do: one conversation
    waits on one person); returns {callId: time of the API's answer}."""
    answered = {}
    queue = asyncio.Queue()
    for number in range(count):
        queue.put_nowait(number)

    async def client():
        http = Http(install.port, install.key)
        while not queue.empty():
            call_id = f"{prefix}-{queue.get_nowait()}"
            status, content = await http.request("POST", "/api/v1/sessions", {"sessionId": call_id, "agent": agent})
            assert status == 201, content
            status, content = await http.request(
                "POST",
                f"/api/v1/sessions/{call_id}/client-actions",
                {"callId": call_id, "name": "refund", "arguments": {"n": 1}},
            )
            assert status == 201, content
            answered[call_id] = time.time()
        await http.close()

    await asyncio.gather(*(client() for _ in range(concurrency)))
    return answered


class BadReceiver:
    """``drip``: reads the request, answers ``HTTP/1.1 200 OK`` and then a byte every 5 s; ``silent``: reads it and
    never answers. Either holds the connection until the sender closes it; ``connections`` counts them."""

    def __init__(self, mode):
        self.mode = mode
        self.connections = 0
        self.stopping = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.hold, args=(connection,), daemon=True).start()

    def hold(self, connection):
        with connection:
            try:
                connection.recv(65536)
                if self.mode == "drip":
                    connection.sendall(b"HTTP/1.1 200 OK\r\n")
                while not self.stopping.is_set():
                    readable, _, _ = select.select([connection], [], [], 5)
                    if readable and not connection.recv(65536):
                        return
                    if self.mode == "drip":
                        connection.sendall(b"X")
            except OSError:
                return

    def close(self):
        self.stopping.set()
        self.listener.close()


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def measure_latency(install, actions):
    receiver = Receiver()
    asyncio.run(channel(install, receiver.url, "latency"))
    answered = {}

    async def one_by_one():
        for number in range(actions):
            answered.update(await open_actions(install, "latency", f"lat{number}", 1))
            # One at a time: each arrives before the next opens, so the queue is always empty.
            await asyncio.to_thread(wait_for, lambda n=number: len(receiver.arrivals) > n, 30)

    asyncio.run(one_by_one())
    receiver.close()
    delays = [arrived - answered[call_id] for _, call_id, arrived in receiver.arrivals]
    return {"p50": percentile(delays, 0.5), "p99": percentile(delays, 0.99), "count": len(delays)}


def measure_burst(install, events, prefix, kill=False):
    receivers = [Receiver() for _ in range(CHANNELS)]
    for receiver in receivers:
        asyncio.run(channel(install, receiver.url, prefix))
    expected = events * CHANNELS
    total = lambda: sum(len(receiver.arrivals) for receiver in receivers)  # noqa: E731
    killed = []
    if kill:

        def killer():
            wait_for(lambda: total() >= expected // 3, 600)
            for pid in install.workers():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            install.start_worker()

        threading.Thread(target=killer, daemon=True).start()
    started = time.time()
    asyncio.run(open_actions(install, prefix, prefix, events, CLIENTS))
    opened = time.time() - started
    complete = wait_for(lambda: len({a[0] for r in receivers for a in r.arrivals}) >= expected, 900)
    finished = max(arrival for receiver in receivers for _, _, arrival in receiver.arrivals)
    ids = Counter(webhook_id for receiver in receivers for webhook_id, _, _ in receiver.arrivals)
    for receiver in receivers:
        receiver.close()
    return {
        "events": expected,
        "received": len(ids),
        "duplicates": sum(ids.values()) - len(ids),
        "seconds": finished - started,
        "per_second": len(ids) / (finished - started),
        "complete": complete,
        "killed": len(killed),
        "opened": events / opened,
    }


def measure_retries(install):
    receiver = Receiver(statuses=[500, 500])
    asyncio.run(channel(install, receiver.url, "retries"))
    asyncio.run(open_actions(install, "retries", "retry", 1))
    wait_for(lambda: len(receiver.arrivals) >= 3, 60)
    receiver.close()
    times = [arrival for _, _, arrival in receiver.arrivals]
    return [round(later - earlier, 2) for earlier, later in zip(times, times[1:], strict=False)]


def isolation_setup(install):
    """4 projects, each with a write key and 5 healthy webhook channels (agent ``good``), each channel its own
    receiver; returns [(project, key, receivers)]."""
    projects = []
    for number in range(ISOLATION_PROJECTS):
        project = f"iso{number}"
        install.run("createproject", project)
        admin = install.run("createapikey", f"{project} admin", "--scope", "admin", "--project", project)
        key = install.run("createapikey", f"{project} agent", "--scope", "write", "--project", project)
        receivers = [Receiver() for _ in range(ISOLATION_CHANNELS // ISOLATION_PROJECTS)]
        for receiver in receivers:
            asyncio.run(project_channel(install, admin, receiver.url, "good"))
        projects.append((project, admin, key, receivers))
    return projects


async def project_channel(install, admin_key, url, agent):
    admin = Http(install.port, admin_key)
    body = {"kind": "webhook", "name": agent, "events": ["client_action.opened"], "url": url, "agents": [agent]}
    status, content = await admin.request("POST", "/api/v1/channels", body)
    await admin.close()
    assert status == 201, content


async def open_in(install, key, agent, call_id):
    """Open one action in a session of its own of ``key``'s project; the time of the API's answer."""
    http = Http(install.port, key)
    status, content = await http.request("POST", "/api/v1/sessions", {"sessionId": call_id, "agent": agent})
    assert status == 201, content
    status, content = await http.request(
        "POST", f"/api/v1/sessions/{call_id}/client-actions", {"callId": call_id, "name": "refund", "arguments": {}}
    )
    assert status == 201, content
    await http.close()
    return time.time()


def arrivals_of(receivers, call_id):
    return [arrival for receiver in receivers for arrival in receiver.arrivals if arrival[1] == call_id]


def healthy_latencies(install, projects, rounds, prefix):
    """``rounds`` actions, one at a time, each in the next project: open → received for each of its channels."""
    delays = []
    for number in range(rounds):
        _, _, key, receivers = projects[number % len(projects)]
        call_id = f"{prefix}-{number}"
        answered = asyncio.run(open_in(install, key, "good", call_id))
        wait_for(lambda r=receivers, c=call_id: len(arrivals_of(r, c)) == len(r), 60)
        delays.extend(at - answered for _, _, at in arrivals_of(receivers, call_id))
    return delays


def measure_isolation(install, rounds):
    projects = isolation_setup(install)
    alone = healthy_latencies(install, projects, rounds, "alone")
    dripping, silent = BadReceiver("drip"), BadReceiver("silent")
    for (_, admin, key, _), bad in zip(projects[:2], (dripping, silent), strict=True):
        asyncio.run(project_channel(install, admin, bad.url, "bad"))
        for number in range(BAD_DELIVERIES):
            asyncio.run(open_in(install, key, "bad", f"bad-{bad.mode}-{number}"))
    # Both bad destinations hold their slots before the healthy deliveries start.
    wait_for(lambda: dripping.connections >= 2 and silent.connections >= 2, 60)
    beside = healthy_latencies(install, projects, rounds, "beside")
    for closing in [dripping, silent] + [r for *_, receivers in projects for r in receivers]:
        closing.close()
    return alone, beside


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=100, help="Healthy actions per isolation run (× 5 channels).")
    parser.add_argument("--only", default=",".join(MEASURES), help=f"Comma separated, of {', '.join(MEASURES)}.")
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_POSTGRES))
    options = parser.parse_args()
    chosen = set(options.only.split(","))
    if not chosen <= set(MEASURES):
        parser.error(f"--only takes {', '.join(MEASURES)}")
    results = {}
    with tempfile.TemporaryDirectory(prefix="hh-bench-notify-") as directory:
        install = Installation(
            options.postgres, Path(directory), WEBHOOK_RETRY_DELAYS="1,2", NOTIFICATIONS_LEASE_SECONDS="10"
        )
        try:
            if "retries" in chosen:
                results["retries"] = measure_retries(install)
            if "latency" in chosen:
                results["latency"] = measure_latency(install, options.actions)
            if "burst" in chosen:
                results["burst"] = measure_burst(install, options.events, "burst")
            if "kill" in chosen:
                results["kill"] = measure_burst(install, options.events, "kill", kill=True)
            if "isolation" in chosen:
                results["isolation"] = measure_isolation(install, options.rounds)
        finally:
            install.stop()
    report(results, options)


def report(results, options):
    if results.keys() - {"isolation"}:
        print("| measure | result |")
        print("|---|---|")
    if latency := results.get("latency"):
        print(
            f"| open → webhook received, p50 / p99 ({latency['count']} actions) | "
            f"{latency['p50'] * 1000:.1f} ms / {latency['p99'] * 1000:.1f} ms (targets 200 ms / 1 s) |"
        )
    if burst := results.get("burst"):
        print(
            f"| burst of {burst['events']:,} deliveries ({options.events:,} events × {CHANNELS} channels), "
            f"{CLIENTS} clients opening | {burst['per_second']:.0f} deliveries/s, {burst['seconds']:.1f} s in all "
            f"(actions opened at {burst['opened']:.0f}/s meanwhile) |"
        )
    if killed := results.get("kill"):
        print(
            f"| the same burst, {killed['killed']} worker(s) SIGKILLed a third in, one started | "
            f"{killed['received']:,} of {killed['events']:,} received, {killed['duplicates']} duplicates "
            f"(same webhook-id), {killed['seconds']:.1f} s |"
        )
    if (gaps := results.get("retries")) is not None:
        print(f"| 500, 500, then 200 with WEBHOOK_RETRY_DELAYS=1,2 | attempts {gaps} s apart |")
    print(
        f"\n{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, bin/start with 2 web workers and its one "
        "delivery worker, PostgreSQL; lease 10 s."
    )
    if isolation := results.get("isolation"):
        alone, beside = isolation
        print(
            f"\nHealthy deliveries, open → received ({ISOLATION_CHANNELS} webhook channels across "
            f"{ISOLATION_PROJECTS} projects, {options.rounds} actions one after another):\n"
        )
        print("| | alone | beside a dripping and a silent receiver |")
        print("|---|---|---|")
        print(f"| deliveries | {len(alone)} | {len(beside)} |")
        for name, share in (("p50", 0.5), ("p99", 0.99)):
            print(f"| {name} | {percentile(alone, share) * 1000:.1f} ms | {percentile(beside, share) * 1000:.1f} ms |")


if __name__ == "__main__":
    main()

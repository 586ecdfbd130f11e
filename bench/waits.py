"""A thousand agents waiting on people: what they cost everyone else (docs/live-updates.md).

Starts the production server (bin/start, 2 uvicorn workers) on a database of
its own, opens WAITS concurrent ``?wait=60`` requests, in two layouts: spread,
one action in each of WAITS sessions; and one session holding all WAITS
actions (a batch agent asking about 500 refunds at once); then while they wait:
- READS unrelated API reads and /healthz calls: their latency;
- the database's transactions per second while nothing else happens, with no
  waits open and with all of them open (PostgreSQL's pg_stat_database);
- the workers' threads and memory;
- DECIDE of the actions decided one after another: decision-to-answer latency.
Prints a table for the README; asserts nothing (the machine is shared and noisy).

    .venv/bin/python bench/waits.py                       # both databases, both layouts
    .venv/bin/python bench/waits.py --database sqlite --layout one-session --waits 100 --reads 50 --decide 20
PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/historyhub_bench_waits),
dropped and created afresh.
"""

import argparse
import asyncio
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from cryptography.fernet import Fernet

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/historyhub_bench_waits"
WAIT_SECONDS = 60
READ_CONCURRENCY = 4
SEED_CONCURRENCY = 16
IDLE_SECONDS = 10
# Sessions with no action, for the unrelated reads.
READ_SESSIONS = 100
# Targets (docs/live-updates.md): decision → answer p50, and unrelated reads' p99 with the waits open.
TARGET_WAKE_P50 = 0.050
TARGET_UNRELATED_P99 = 0.100


class Layout(NamedTuple):
    """Where the waiting actions are: one in each session, or all in one."""

    name: str
    one_session: bool

    def session(self, number):
        return "batch" if self.one_session else f"agent-{number}"

    def call(self, number):
        return f"refund-{number}" if self.one_session else "approve"

    def action(self, number):
        return f"/api/v1/sessions/{self.session(number)}/client-actions/{self.call(number)}"


LAYOUTS = {"spread": Layout("spread", False), "one-session": Layout("one session", True)}
# PostgreSQL's idle backends report their transaction counts up to 10 s late.
STATS_SETTLE_SECONDS = 12


class Http:
    """One keep-alive HTTP/1.1 connection: enough of the protocol for JSON answers."""

    def __init__(self, port, key):
        self.port = port
        self.key = key
        self.reader = self.writer = None

    async def request(self, method, path, body=None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        payload = json.dumps(body).encode() if body is not None else b""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding") == "chunked":
            content = b""
            while size := int((await self.reader.readline()).strip(), 16):
                content += await self.reader.readexactly(size)
                await self.reader.readline()
            await self.reader.readline()
        else:
            content = await self.reader.readexactly(int(headers.get("content-length", 0)))
        if headers.get("connection") == "close":
            await self.close()
        return status, content

    async def close(self):
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def milliseconds(values):
    return f"{percentile(values, 0.5) * 1000:.1f} / {percentile(values, 0.99) * 1000:.1f}"


def environment(database_url, data_dir):
    return {
        **{key: value for key, value in os.environ.items() if key not in ("DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")},
        "DEBUG": "False",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "FIELD_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "RECEIPT_SIGNING_KEYS": secrets.token_urlsafe(32),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "False",
        "DATABASE_URL": database_url,
        "DATA_DIR": str(data_dir),
        "STATIC_ROOT": str(data_dir / "static"),
        "PATH": f"{Path(PYTHON).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        # One key holds every wait here; the default cap would refuse most of them.
        "HISTORYHUB_MAX_WAITS_PER_KEY": "100000",
    }


def fresh_postgres(url):
    import psycopg

    address = urlsplit(url)
    name = address.path.lstrip("/")
    maintenance = address._replace(path="/postgres").geturl()
    with psycopg.connect(maintenance, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def transactions(url):
    """Committed transactions of the database so far, and its open connections (PostgreSQL only)."""
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as watcher:
        commits = watcher.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", [name]).fetchone()[0]
        connections = watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [name]).fetchone()[0]
    # This look itself is one more transaction.
    return commits, connections


def workers(master):
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    threads = rss = 0
    for pid in children:
        status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        threads += int(status["Threads"])
        rss += int(status["VmRSS"].split()[0])
    return len(children), threads, rss / 1024


def subscribers(port):
    """The open waits of each worker, as far as a few dozen /healthz/details calls (each a new connection) show."""
    seen = {}
    for _ in range(40):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz/details", timeout=10) as answer:
            details = json.load(answer)
        seen[details["worker"]] = details["subscribers"]
    return seen


def healthy(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


async def idle_rate(url, seconds):
    await asyncio.sleep(STATS_SETTLE_SECONDS)
    before, _ = transactions(url)
    started = time.monotonic()
    await asyncio.sleep(seconds)
    after, connections = transactions(url)
    return (after - before - 1) / (time.monotonic() - started), connections


async def run(database, layout, options, data_dir):
    url = options.postgres if database == "postgresql" else f"sqlite:///{data_dir / 'bench.sqlite3'}"
    if database == "postgresql":
        fresh_postgres(url)
    env = environment(url, data_dir)
    port = 20000 + secrets.randbelow(20000)
    env.update(BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2")
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True)

    def issue(name, scope):
        command = [PYTHON, "manage.py", "createapikey", name, "--scope", scope]
        return subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout.strip()

    # The agents' key opens the actions; the people's key decides them (the opener may not).
    key, people_key = issue("bench", "write"), issue("bench people", "decide")
    log = open(data_dir / "server.log", "w")  # noqa: SIM115 - closed with the server
    server = subprocess.Popen([str(ROOT / "bin" / "start")], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not healthy(port):
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"bin/start did not come up: {(data_dir / 'server.log').read_text()[-2000:]}")
            await asyncio.sleep(0.2)
        return await measure(database, layout, options, url, port, key, people_key, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


async def seed(port, key, layout, count):
    client = Http(port, key)
    for number in range(READ_SESSIONS):
        await client.request("POST", "/api/v1/sessions", {"sessionId": f"reader-{number}", "agent": "benchAgent"})
    await client.request("POST", "/api/v1/sessions", {"sessionId": "batch", "agent": "benchAgent"})
    await client.close()
    queue = asyncio.Queue()
    for number in range(count):
        queue.put_nowait(number)

    async def seeder():
        client = Http(port, key)
        while not queue.empty():
            number = queue.get_nowait()
            session = layout.session(number)
            if not layout.one_session:
                await client.request("POST", "/api/v1/sessions", {"sessionId": session, "agent": "benchAgent"})
            opened = {"callId": layout.call(number), "name": "refund", "arguments": {"amount": number}}
            status, _ = await client.request("POST", f"/api/v1/sessions/{session}/client-actions", opened)
            assert status == 201, status
        await client.close()

    await asyncio.gather(*(seeder() for _ in range(SEED_CONCURRENCY)))


async def unrelated_requests(port, key, count):
    """Latencies of ``count`` reads, a quarter of them /healthz, READ_CONCURRENCY at a time: (API reads, healthz)."""
    reads, health = [], []
    queue = asyncio.Queue()
    for number in range(count):
        queue.put_nowait(number)

    async def reader():
        client = Http(port, key)
        while not queue.empty():
            number = queue.get_nowait()
            session = f"reader-{number % READ_SESSIONS}"
            path, into = ("/healthz", health) if number % 4 == 0 else (f"/api/v1/sessions/{session}", reads)
            started = time.monotonic()
            status, _ = await client.request("GET", path)
            into.append(time.monotonic() - started)
            assert status == 200, status
        await client.close()

    await asyncio.gather(*(reader() for _ in range(READ_CONCURRENCY)))
    return reads, health


async def measure(database, layout, options, url, port, key, people_key, master):
    await seed(port, key, layout, options.waits)
    row = {"database": database, "layout": layout.name, "waits": options.waits}
    # Warm both workers up (imports, pools), then measure them alone.
    await unrelated_requests(port, key, 40)
    row["reads_alone"], row["health_alone"] = await unrelated_requests(port, key, options.reads)
    if database == "postgresql":
        row["idle_without_waits"], _ = await idle_rate(url, IDLE_SECONDS)

    loop = asyncio.get_running_loop()
    answers = [loop.create_future() for _ in range(options.waits)]

    async def wait(number):
        client = Http(port, key)
        status, content = await client.request("GET", f"{layout.action(number)}?wait={WAIT_SECONDS}")
        answer = json.loads(content)["status"] if status == 200 else content
        answers[number].set_result((time.monotonic(), status, answer))
        await client.close()

    waits = [asyncio.create_task(wait(number)) for number in range(options.waits)]
    # Every wait has made its first read and sits idle.
    while sum((await asyncio.to_thread(subscribers, port)).values()) < options.waits:
        await asyncio.sleep(0.5)
    if database == "postgresql":
        row["idle_with_waits"], row["connections"] = await idle_rate(url, IDLE_SECONDS)
    row["workers"], row["threads"], row["rss_mb"] = workers(master)

    row["reads"], row["health"] = await unrelated_requests(port, key, options.reads)

    decider = Http(port, people_key)
    latencies, decisions, missed = [], [], 0
    for number in range(options.decide):
        started = time.monotonic()
        status, _ = await decider.request("POST", f"{layout.action(number)}/decision", {"decision": "approve"})
        decisions.append(time.monotonic() - started)
        assert status == 200, status
        try:
            answer_at, answer_status, answer = await asyncio.wait_for(answers[number], 10)
        except TimeoutError:
            missed += 1
            continue
        assert (answer_status, answer) == (200, "approved"), (answer_status, answer)
        latencies.append(answer_at - started)
    await decider.close()
    row["decision_to_answer"], row["decisions"], row["missed"] = latencies, decisions, missed
    row["early"] = sum(1 for answer in answers[options.decide :] if answer.done())
    for task in waits:
        task.cancel()
    await asyncio.gather(*waits, return_exceptions=True)
    return row


def table(rows):
    lines = [
        "| database | waits open in | API reads p50 / p99 ms: no waits → waits open "
        "| /healthz p50 / p99 ms: no waits → waits open | decision → answer p50 / p99 ms | decided waiters answered "
        "| DB transactions/s idle: no waits → waits open | DB connections | worker threads | worker RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        idle = (
            f"{row['idle_without_waits']:.1f} → {row['idle_with_waits']:.1f}"
            if "idle_with_waits" in row
            else "no queries (file watcher)"
        )
        answered = len(row["decision_to_answer"])
        lines.append(
            f"| {row['database']} | {row['waits']}, {row['layout']} "
            f"| {milliseconds(row['reads_alone'])} → {milliseconds(row['reads'])} "
            f"| {milliseconds(row['health_alone'])} → {milliseconds(row['health'])} "
            f"| {milliseconds(row['decision_to_answer'])} | {answered} of {answered + row['missed']} | {idle} "
            f"| {row.get('connections', '–')} | {row['threads']} | {row['rss_mb']:.0f} |"
        )
    return "\n".join(lines)


def targets(rows):
    """Each row against the targets: wake p50, every decided waiter answered, unrelated p99 (waits open)."""
    lines = []
    for row in rows:
        wake = percentile(row["decision_to_answer"], 0.5) if row["decision_to_answer"] else float("inf")
        unrelated = percentile(row["reads"], 0.99)
        checks = [
            (wake < TARGET_WAKE_P50, f"wake p50 {wake * 1000:.1f} ms < {TARGET_WAKE_P50 * 1000:.0f} ms"),
            (row["missed"] == 0, f"{row['missed']} decided waiters unanswered"),
            (unrelated < TARGET_UNRELATED_P99, f"unrelated p99 {unrelated * 1000:.1f} ms < 100 ms"),
        ]
        verdicts = "; ".join(f"{'met' if met else 'MISSED'}: {text}" for met, text in checks)
        lines.append(f"- {row['database']}, {row['layout']}: {verdicts}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["postgresql", "sqlite", "both"], default="both")
    parser.add_argument("--waits", type=int, default=1000)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--decide", type=int, default=100)
    parser.add_argument("--layout", choices=[*LAYOUTS, "both"], default="both")
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_POSTGRES))
    options = parser.parse_args()
    # Each open wait is a socket on both ends.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    databases = ["postgresql", "sqlite"] if options.database == "both" else [options.database]
    layouts = list(LAYOUTS.values()) if options.layout == "both" else [LAYOUTS[options.layout]]
    rows = []
    for database in databases:
        for layout in layouts:
            with tempfile.TemporaryDirectory(prefix="hh-bench-waits-") as directory:
                started = time.monotonic()
                rows.append(asyncio.run(run(database, layout, options, Path(directory))))
                print(f"{database}, {layout.name}: measured in {time.monotonic() - started:.0f} s", file=sys.stderr)
    print(table(rows))
    print()
    print(targets(rows))
    early = sum(row["early"] for row in rows)
    if early:
        print(f"\n{early} waits answered before their decision (expected none).")
    print(
        f"\n{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, bin/start with 2 workers; "
        f"{options.reads} unrelated requests {READ_CONCURRENCY} at a time; {options.decide} decisions one at a time."
    )


if __name__ == "__main__":
    main()

"""The stress run (docs/stress.md): the production server under 16 clients while a worker dies and PostgreSQL restarts.

    make stress                                   # 60 seconds
    STRESS_SECONDS=20 make stress                 # what CI runs
    .venv/bin/python bench/stress.py --seconds 20

It makes its own PostgreSQL cluster on a free port (bench/production.py),
starts ``bin/start`` on it with 4 workers and no rate limits, and runs client
processes (bench/stress_client.py) that append batches, race Idempotency-Keys
and operation ids, pop and read. Beside them, 30 slow request bodies, a request
with oversized headers every second and a /healthz probe every 0.2 s
(bench/stress_attack.py). At 30% of the run one worker is SIGKILLed; at
55% PostgreSQL is stopped, kept down for ``--down`` seconds and started again.
Then it checks every invariant (bench/stress_checks.py), prints a summary and
exits 1 if any check failed. The cluster and the server are removed at the end.
"""

import argparse
import json
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import stress_attack, stress_checks, stress_client  # noqa: E402
from bench.production import production_run  # noqa: E402

KILL_AT = 0.30
RESTART_AT = 0.55
# How long after PostgreSQL is back a 503 still counts as the restart's.
RESTART_GRACE = 20
# A request in flight when its worker is killed may end a little after the kill.
KILL_GRACE = 1.0
PROBE_PAUSE = 0.1
# Short, so that each slow body of the attack is answered 408 a few times within the run.
BODY_TIMEOUT = 5


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("STRESS_SECONDS") or 60))
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--down", type=float, default=2.0, help="seconds PostgreSQL stays down in its restart")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--keep", action="store_true", help="keep the folder with the logs and records")
    return parser.parse_args()


class Probe(threading.Thread):
    """One read every PROBE_PAUSE seconds, so recovery is measured even when every client is busy retrying."""

    def __init__(self, base, key):
        super().__init__(daemon=True)
        self.journal = []
        self.http = stress_client.Http(base, key, self.journal)
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.wait(PROBE_PAUSE):
            self.http.call("probe", "GET", "/api/v1/sessions?pageSize=1")


def kill_a_worker(server, faults):
    workers = server.workers()
    victim = random.choice(workers)
    faults["kill"] = {"at": time.monotonic(), "pid": victim, "grace": KILL_GRACE}
    os.kill(victim, signal.SIGKILL)
    # A new worker replaces it: the server is back to full strength.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        current = server.workers()
        if victim not in current and len(current) == len(workers):
            faults["kill"]["replaced"] = time.monotonic() - faults["kill"]["at"]
            return
        time.sleep(0.05)


def restart_postgres(cluster, down, faults):
    began = time.monotonic()
    if down > 0:
        cluster.stop("fast")
        time.sleep(down)
        cluster.start()
    else:
        cluster.restart()
    up = time.monotonic()
    faults["restart"] = {"began": began, "up": up, "window_end": up + RESTART_GRACE}


def run(options, folder, cluster, server, keys):
    context = multiprocessing.get_context("spawn")
    give_up = 60
    processes = [
        context.Process(
            target=stress_client.run_client,
            args=(n, server.base, keys, options.seconds, give_up, options.seed, folder / f"client-{n}.json"),
        )
        for n in range(options.clients)
    ]
    probe = Probe(server.base, keys.agent)
    attack = stress_attack.Attack(server.base, keys.agent)
    start = time.monotonic()
    for process in processes:
        process.start()
    probe.start()
    attack.start()
    faults = {"start": start}
    time.sleep(max(0.0, start + KILL_AT * options.seconds - time.monotonic()))
    kill_a_worker(server, faults)
    time.sleep(max(0.0, start + RESTART_AT * options.seconds - time.monotonic()))
    restart_postgres(cluster, options.down, faults)
    for process in processes:
        process.join(options.seconds + give_up + 120)
        if process.is_alive():
            process.kill()
    probe.stopping.set()
    probe.join()
    attack.stop()
    faults["end"] = time.monotonic()
    records = []
    for n, process in enumerate(processes):
        path = folder / f"client-{n}.json"
        if process.exitcode != 0 or not path.exists():
            raise RuntimeError(f"client {n} failed (exit code {process.exitcode})")
        records.append(json.loads(path.read_text()))
    records.append(
        {"client": "probe", "requests": probe.journal, "violations": [], "unresolved": 0, "batches": [], "pops": []}
    )
    return records, attack.record(), faults


def check(records, attack, faults, database_url, folder):
    """The checks; the database ones through Django's models, on the run's database."""
    os.environ.update(DATABASE_URL=database_url, DEBUG="True", DATA_DIR=str(folder), DATABASE_POOL_DISABLED="True")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "historyhub.settings")
    import django

    django.setup()
    clients = [record for record in records if record["client"] != "probe"]
    return (
        stress_checks.http_checks(records, faults)
        + stress_checks.attack_checks(attack, faults)
        + stress_checks.database_checks(clients)
    )


def summary(options, records, attack, faults, checks, cluster):
    requests = stress_checks.requests_of(records)
    clients = [record for record in records if record["client"] != "probe"]
    statuses = Counter(entry["status"] if entry["status"] is not None else "no answer" for entry in requests)
    batches = [batch for record in clients for batch in record["batches"]]
    acknowledged = [batch for batch in batches if batch["outcome"] == "acknowledged"]
    measured = stress_checks.recovery(records, faults)
    kill, restart = faults["kill"], faults["restart"]
    at = faults["start"]
    back_after_up = max(0.0, restart["began"] + measured["restart"]["seconds"] - restart["up"])
    elapsed = faults["end"] - at
    lines = [
        f"HistoryHub stress: {options.seconds:g} s, {options.clients} client processes, bin/start with "
        f"{options.workers} workers, PostgreSQL (own cluster, port {cluster.port}), seed {options.seed}",
        f"requests: {len(requests):,} ({len(requests) / elapsed:,.0f}/s over {elapsed:.0f} s, retries included)",
        "  by status: " + ", ".join(f"{status}: {count:,}" for status, count in sorted(statuses.items(), key=str)),
        f"  5xx other than 503: {sum(c for s, c in statuses.items() if isinstance(s, int) and s >= 500 and s != 503)}",
        f"  non-JSON answers under /api/: {sum(1 for entry in requests if entry.get('json') is False)}",
        f"  slowest answer: {max(entry['t1'] - entry['t0'] for entry in requests):.2f} s",
        f"acknowledged: {sum(len(batch['tokens']) for batch in acknowledged):,} items in {len(acknowledged):,} "
        f"batches; {sum(len(r['pops']) for r in clients):,} pops; {sum(len(r['operations']) for r in clients):,} "
        f"operations; {sum(len(r['keys']) for r in clients):,} Idempotency-Keys; "
        f"{sum(1 for batch in batches if batch['outcome'] == 'unknown'):,} batches whose answer was lost",
        f"worker SIGKILL at {kill['at'] - at:.1f} s (pid {kill['pid']}): {measured['kill']['failed']} requests cut; "
        f"a new worker forked after {kill.get('replaced', float('nan')):.1f} s; "
        f"every client answered again after {measured['kill']['seconds']:.1f} s",
        f"PostgreSQL stopped at {restart['began'] - at:.1f} s, up {restart['up'] - restart['began']:.1f} s later: "
        f"{measured['restart']['failed']} answers 503; service recovered by itself "
        f"{measured['restart']['seconds']:.1f} s after the stop, {back_after_up:.1f} s after PostgreSQL was up",
        f"attack: {stress_attack.SLOW_BODIES} slow bodies at a time, {len(attack['slowBodies'])} in all "
        f"({stress_checks.outcomes(attack['slowBodies'])}); {len(attack['oversized'])} oversized heads "
        f"({stress_checks.outcomes(attack['oversized'])}); /healthz: {len(attack['probes'])} probes "
        f"({stress_checks.outcomes(attack['probes'])}), the slowest {stress_checks.slowest(attack['probes']):.2f} s",
        "invariants:",
    ]
    for item in checks:
        detail = f" ({item.detail})" if item.detail else ""
        lines.append(f"  {'PASS' if item.passed else 'FAIL'} {item.name}{detail}")
        lines.extend(f"       {failure}" for failure in item.failures[: stress_checks.EXAMPLES])
        if len(item.failures) > stress_checks.EXAMPLES:
            lines.append(f"       … {len(item.failures) - stress_checks.EXAMPLES} more")
    recovered = all(value["back"] for value in measured.values())
    if not recovered:
        lines.append("  FAIL the service did not answer again after a fault")
    passed = recovered and all(item.passed for item in checks)
    lines.append(f"result: {'PASS' if passed else 'FAIL'}")
    return "\n".join(lines), passed


def main():
    options = arguments()
    with production_run("hh-stress-", workers=options.workers, REQUEST_BODY_TIMEOUT=str(BODY_TIMEOUT)) as stress:
        print(
            f"bin/start on {stress.server.base}, workers {stress.server.workers()}; PostgreSQL on port "
            f"{stress.cluster.port}; running {options.seconds:g} s",
            flush=True,
        )
        records, attack, faults = run(options, stress.folder, stress.cluster, stress.server, stress.keys)
        stress.server.stop()
        checks = check(records, attack, faults, stress.cluster.url(), stress.folder)
        text, passed = summary(options, records, attack, faults, checks, stress.cluster)
        print(text)
        (stress.folder / "summary.txt").write_text(text + "\n")
        stress.keep = options.keep or not passed
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

"""``make bench``: HistoryHub side by side with the stores an Agents SDK user
would pick instead, in one run, printed as one table with the ratios.

This process never sets Django up. It prepares the databases (a seeded data
set is cached as a PostgreSQL template database, or a SQLite file, keyed by a
hash of the migrations, the seed code and the sizes, so later runs skip
seeding and start from the same data), starts the production server with
``bin/start``, and runs the measures of each database in a process of its
own with the production settings (DEBUG off). See ``python -m bench --help``.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench import report
from bench import server as production
from bench.plan import FULL, MEASURES, QUICK, Job
from bench.server import REPO, Server

POSTGRES = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432")
HUB_DATABASE, SDK_DATABASE = "hh_bench", "hh_bench_sqlalchemy"
RESULTS = REPO / "bench" / "results"
README = REPO / "README.md"
README_START, README_END = "<!-- bench:start -->", "<!-- bench:end -->"
# What a cached data set depends on, besides the migrations and the sizes (--reseed for anything else).
SEED_SOURCES = ("bench/seed.py", "bench/items.py")

INTERLEAVED = (
    "Interleaved: every contender runs once a round (ingest: medians of the rounds) or once a sample "
    "(latencies: p50 and p90 of the samples), in an order that rotates from one to the next."
)
SAME_ITEMS = (
    "The same items for every contender: Agents-SDK-shaped user and assistant messages, function calls with "
    "their outputs and reasoning, about half of the conversations with the SDK's `__fake_id__` ids."
)
SAME_SERVER = (
    "PostgreSQL: both stores on the same server with the same settings, each in its own database holding the "
    "same conversations."
)
OVER_HTTP = (
    "HTTP: the production server started by `bin/start` (DEBUG off) on 127.0.0.1; HTTP clients are separate "
    "processes using HistoryHub's Python client, on the same cores as the server and the database."
)
SERVER_TIME = (
    "Dashboard times are server times measured in process: Django's test client through the whole middleware "
    "stack, DEBUG off, logged in as a superuser; no network and no browser."
)


def method_notes(results, served):
    """How the numbers were taken, for the measures this run made."""
    backends = {backend for _, backend in results}
    notes = [INTERLEAVED, SAME_ITEMS]
    if "postgresql" in backends:
        notes.append(SAME_SERVER)
    if served:
        notes.append(OVER_HTTP)
    if any(name == "dashboard" for name, _ in results):
        notes.append(SERVER_TIME)
    return notes


@dataclass
class Stores:
    backend: str
    env: dict
    sdk_location: str
    facts: dict


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run for CI and development")
    parser.add_argument(
        "--only", action="append", choices=list(MEASURES), metavar="NAME", help=f"run only NAME: {', '.join(MEASURES)}"
    )
    parser.add_argument(
        "--sqlite-only", action="store_true", help="every measure on SQLite, no PostgreSQL needed (the test suite)"
    )
    parser.add_argument("--reseed", action="store_true", help="seed the data set again even when it is cached")
    parser.add_argument(
        "--output",
        type=Path,
        help="where the markdown goes; by default bench/results/latest.md for a whole run at full sizes (and the "
        "README's Performance section with it), quick.md or partial.md otherwise",
    )
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    sizes = QUICK if args.quick else FULL
    names = args.only or list(MEASURES)
    primary = "sqlite" if args.sqlite_only else "postgresql"
    work = Path(os.environ.get("DATA_DIR", REPO / "data")) / "bench"
    work.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.UTC)
    load_at_start = os.getloadavg()[0]

    results, facts, served = {}, {}, False
    for backend in (primary,) if args.sqlite_only else ("postgresql", "sqlite"):
        todo = [name for name in names if args.sqlite_only or backend in MEASURES[name][0]]
        if not todo:
            continue
        stores = prepare(backend, sizes, work, args.reseed)
        facts[backend] = stores.facts
        serve = backend == primary and any(MEASURES[name][1] for name in todo)
        server = Server(stores.env, work / f"server-{backend}.log") if serve else None
        served = served or serve
        job = Job(todo, backend, sizes.as_json(), stores.sdk_location)
        if server is not None:
            job.server_url, job.server_pid = server.url, server.pid
        try:
            for name, rows in run_job(job, stores.env, work).items():
                results[name, backend] = rows
        finally:
            if server is not None:
                server.stop()

    rows = [
        report.Row(**row)
        for name in MEASURES
        for backend in ("postgresql", "sqlite")
        for row in results.get((name, backend), [])
    ]
    title = f"HistoryHub side by side ({'quick sizes' if args.quick else 'full sizes'}), {started:%Y-%m-%d %H:%M} UTC"
    header = header_lines(load_at_start, facts, sizes)
    document = report.document(title, header, rows, method_notes(results, served))
    print(document)
    complete = not args.quick and not args.only and not args.sqlite_only
    output = args.output or RESULTS / ("latest.md" if complete else "quick.md" if args.quick else "partial.md")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(document)
    print(f"(written to {output})", file=sys.stderr)
    if complete and args.output is None:
        update_readme(document)
        print(f"(and to {README.name}'s Performance section)", file=sys.stderr)


def update_readme(document):
    """Put the table between the README's markers, so its Performance section shows the latest whole run."""
    text = README.read_text()
    before, rest = text.split(README_START, 1)
    after = rest.split(README_END, 1)[1]
    README.write_text(f"{before}{README_START}\n{document}{README_END}{after}")


# Running a job in its own process -----------------------------------------------------


def django_env(database_url, work):
    """The production settings, pointed at the benchmark's database."""
    env = {name: value for name, value in os.environ.items() if name not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(
        DEBUG="False",
        SECRET_KEY="bench-only-secret-key-never-used-in-production",
        # Fixed, as SECRET_KEY is: each job's process reads the same database
        # (base64 of "bench-only-field-encryption-key!").
        FIELD_ENCRYPTION_KEYS="YmVuY2gtb25seS1maWVsZC1lbmNyeXB0aW9uLWtleSE=",
        # (base64 of "bench-only-receipt-signing-key!!")
        RECEIPT_SIGNING_KEYS="YmVuY2gtb25seS1yZWNlaXB0LXNpZ25pbmcta2V5ISE=",
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        SECURE_SSL_REDIRECT="False",
        SECURE_COOKIES="False",
        SECURE_HSTS_SECONDS="0",
        DATABASE_URL=database_url,
        LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="historyhub.settings",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=str(REPO),
    )
    return env


def run_job(job, env, work):
    print(f"{', '.join(job.measures)} on {job.backend} …", file=sys.stderr, flush=True)
    with tempfile.NamedTemporaryFile(dir=work, suffix=".json") as result:
        subprocess.run(
            [sys.executable, "-m", "bench.worker", json.dumps(job.__dict__), result.name], cwd=REPO, env=env, check=True
        )
        answer = json.loads(Path(result.name).read_text())
    return answer.get("rows", answer.get("facts"))


# The data set --------------------------------------------------------------------------


def data_set_key(backend, sizes):
    digest = hashlib.sha256(f"{backend} {sizes.data_set}".encode())
    sources = sorted(REPO.glob("historyhub/*/migrations/*.py")) + [REPO / path for path in SEED_SOURCES]
    for path in sources:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def prepare(backend, sizes, work, reseed):
    """Databases for this run, copied from the cached seeded data set (seeded first when there is none)."""
    key = data_set_key(backend, sizes)
    facts_path = work / f"data-set-{backend}-{sizes.name}-{key}.json"
    if backend == "postgresql":
        return _prepare_postgresql(sizes, work, key, facts_path, reseed)
    return _prepare_sqlite(sizes, work, key, facts_path, reseed)


def _admin():
    return psycopg.connect(f"{POSTGRES}/postgres", autocommit=True)


def _database_url(name):
    return f"{POSTGRES}/{name}"


def _sdk_url(name):
    return _database_url(name).replace("postgres://", "postgresql+asyncpg://", 1)


def _prepare_postgresql(sizes, work, key, facts_path, reseed):
    templates = {name: f"{name}_{sizes.name}_tpl_{key}" for name in (HUB_DATABASE, SDK_DATABASE)}
    with _admin() as admin:
        existing = {name for (name,) in admin.execute("SELECT datname FROM pg_database")}
        if reseed or not facts_path.exists() or not set(templates.values()) <= existing:
            builds = {name: f"{name}_{sizes.name}_build" for name in templates}
            for build in builds.values():
                admin.execute(f'DROP DATABASE IF EXISTS "{build}" WITH (FORCE)')
                admin.execute(f'CREATE DATABASE "{build}"')
            print("seeding the PostgreSQL data set (cached for later runs) …", file=sys.stderr, flush=True)
            job = Job(["seed"], "postgresql", sizes.as_json(), _sdk_url(builds[SDK_DATABASE]))
            facts = run_job(job, django_env(_database_url(builds[HUB_DATABASE]), work), work)
            # Earlier data sets of the benchmark's own at these sizes go; the new one takes their place.
            for name in existing:
                if name.startswith("hh_bench") and f"_{sizes.name}_tpl_" in name:
                    admin.execute(f'DROP DATABASE "{name}"')
            for old in work.glob(f"data-set-postgresql-{sizes.name}-*.json"):
                old.unlink()
            for name, build in builds.items():
                admin.execute(f'ALTER DATABASE "{build}" RENAME TO "{templates[name]}"')
            facts_path.write_text(json.dumps(facts))
        for name, template in templates.items():
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return Stores(
        "postgresql",
        django_env(_database_url(HUB_DATABASE), work),
        _sdk_url(SDK_DATABASE),
        json.loads(facts_path.read_text()),
    )


def _prepare_sqlite(sizes, work, key, facts_path, reseed):
    cached = {name: work / f"data-set-{sizes.name}-{key}-{name}.sqlite3" for name in ("hub", "sdk")}
    running = {name: work / f"run-{name}.sqlite3" for name in ("hub", "sdk")}
    if reseed or not facts_path.exists() or not all(path.exists() for path in cached.values()):
        builds = {name: work / f"build-{sizes.name}-{name}.sqlite3" for name in cached}
        for path in builds.values():
            _remove_sqlite(path)
        print("seeding the SQLite data set (cached for later runs) …", file=sys.stderr, flush=True)
        job = Job(["seed"], "sqlite", sizes.as_json(), str(builds["sdk"]))
        facts = run_job(job, django_env(f"sqlite:///{builds['hub']}", work), work)
        for old in [*work.glob(f"data-set-{sizes.name}-*.sqlite3"), *work.glob(f"data-set-sqlite-{sizes.name}-*.json")]:
            old.unlink()
        for name, build in builds.items():
            _checkpoint(build)
            build.rename(cached[name])
        facts_path.write_text(json.dumps(facts))
    for name, path in running.items():
        _remove_sqlite(path)
        shutil.copyfile(cached[name], path)
    return Stores(
        "sqlite",
        django_env(f"sqlite:///{running['hub']}", work),
        str(running["sdk"]),
        json.loads(facts_path.read_text()),
    )


def _checkpoint(path):
    """Fold the write-ahead log into the file, so the file alone is the database."""
    with closing(sqlite3.connect(path)) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _remove_sqlite(path):
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


# The header: when, where, on what --------------------------------------------------------


def header_lines(load_at_start, facts, sizes):
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor(),
    )
    memory_kb = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if "MemTotal" in line
    )
    lines = [
        f"Machine: {os.cpu_count()} cores ({cpu}), "
        f"{memory_kb / 2**20:.0f} GiB RAM; load average {load_at_start:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end (the machine's other work adds noise to every number).",
        f"Software: {_postgres_version(facts)}SQLite {sqlite3.sqlite_version}, Python {platform.python_version()}, "
        f"HistoryHub {_commit()}.",
        _server_line(),
    ]
    for backend, data in facts.items():
        lines.append(
            f"Data set ({'PostgreSQL' if backend == 'postgresql' else 'SQLite'}): {data['sessions']:,} sessions, "
            f"{data['timeline_rows']:,} timeline rows, {data['log_items']:,} log items, "
            f"{data['waiting_actions']:,} waiting client actions; the long session: "
            f"{data['big_session_items']:,} items ({sizes.big_items:,} sent), "
            f"{data['big_session_history']:,} history items; on disk HistoryHub {data['hub_bytes'] / 2**30:.2f} GiB, "
            f"{data['sdk_name']} {data['sdk_bytes'] / 2**30:.2f} GiB."
        )
    return lines


def _server_line():
    program, values = production.settings()
    settings = ", ".join(f"{name}={value}" for name, value in values.items())
    return f"Production server: `bin/start` ({program}) with {settings}."


def _postgres_version(facts):
    if "postgresql" not in facts:
        return ""
    with _admin() as admin:
        return f"PostgreSQL {admin.execute('SHOW server_version').fetchone()[0]}, "


def _commit():
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "(not a git checkout)"
    # The results and the README this harness writes are not what it measures.
    changed = git("status", "--porcelain", "--", ".", ":!bench/results", ":!README.md")
    return commit + (" with uncommitted changes" if changed else "")

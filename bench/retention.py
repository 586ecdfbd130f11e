"""A writer's append latency with and without a retention run over many old sessions (docs/data.md, "Retention").

On a PostgreSQL database of its own (dropped and made again), SESSIONS sessions last updated 400 days ago are
cloned in SQL from one made through the write path (items, timeline and all); the project keeps sessions for
30 days. A writer process appends one item at a time to a live session: first alone for --baseline seconds,
then while another process runs the retention sweep over the old sessions. Prints the writer's p50/p99 in
both phases, their ratio, and the sweep's rate. Asserts nothing: the machine is shared and noisy.

    .venv/bin/python bench/retention.py --sessions 100000
BENCH_DATABASE_URL: default postgres://postgres@127.0.0.1:5432/historyhub_bench_retention.
"""

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/historyhub_bench_retention"


def fresh_database(url):
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def setup_django(url):
    sys.path.insert(0, str(ROOT))
    # No pool: each process (forked below) opens connections of its own.
    os.environ.update(
        DATABASE_URL=url, DATABASE_POOL_DISABLED="True", DEBUG="True", DJANGO_SETTINGS_MODULE="historyhub.settings"
    )
    import django

    django.setup()


def seed(count):
    from django.core.management import call_command
    from django.db import connection

    from historyhub.history import item_log
    from historyhub.history.models import Item, Session, TimelineEntry
    from historyhub.projects.models import Project

    call_command("migrate", verbosity=0)
    item_log.append(
        "template",
        [
            {"role": "user", "content": "Where is my parcel? Order 1234."},
            {"role": "assistant", "content": "It left the depot this morning and arrives tomorrow."},
            {"role": "user", "content": "Thanks!"},
        ],
        agent="support",
    )
    with connection.cursor() as cursor:
        for model in (Session, Item, TimelineEntry):
            fields = [field for field in model._meta.concrete_fields if not field.auto_created]
            expressions = []
            for field in fields:
                if field.column in ("id", "session_id"):
                    expressions.append("'old-' || n")
                elif field.column in ("created_at", "updated_at"):
                    expressions.append("now() - interval '400 days'")
                else:
                    expressions.append(f"t.{connection.ops.quote_name(field.column)}")
            columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
            key = "id" if model is Session else "session_id"
            cursor.execute(
                f"INSERT INTO {model._meta.db_table} ({columns}) SELECT {', '.join(expressions)} "
                f"FROM {model._meta.db_table} t, generate_series(1, %s) n WHERE t.{key} = 'template'",
                [count],
            )
        cursor.execute("ANALYZE")
    Session.objects.filter(pk="template").delete()
    Project.objects.filter(pk="default").update(retention_days=30)


def write(seconds, until, latencies):
    """Append an item at a time until ``seconds`` pass or ``until`` is set; each append's latency in ms."""
    from django.db import connections

    from historyhub.history import item_log

    connections.close_all()
    deadline = time.monotonic() + seconds
    number = 0
    while time.monotonic() < deadline and not (until is not None and until.is_set()):
        number += 1
        started = time.perf_counter()
        item_log.append("live", [{"role": "user", "content": f"message {number}"}], agent="support")
        latencies.append((time.perf_counter() - started) * 1000)


def sweep(done, report):
    from django.db import connections

    from historyhub.upkeep import retention

    connections.close_all()
    started = time.perf_counter()
    report["deleted"] = retention.sweep()
    report["seconds"] = time.perf_counter() - started
    done.set()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--baseline", type=float, default=20, help="Seconds of writing alone.")
    args = parser.parse_args()
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE)
    fresh_database(url)
    setup_django(url)
    from django.db import connections

    started = time.perf_counter()
    seed(args.sessions)
    print(
        f"seeded {args.sessions} old sessions (3 items and 3 timeline entries each) "
        f"in {time.perf_counter() - started:.1f} s"
    )
    connections.close_all()

    context = multiprocessing.get_context("fork")
    manager = context.Manager()
    alone = manager.list()
    writer = context.Process(target=write, args=(args.baseline, None, alone))
    writer.start()
    writer.join()

    beside, report, done = manager.list(), manager.dict(), context.Event()
    writer = context.Process(target=write, args=(24 * 3600, done, beside))
    sweeper = context.Process(target=sweep, args=(done, report))
    writer.start()
    sweeper.start()
    sweeper.join()
    writer.join()

    alone, beside = list(alone), list(beside)
    for name, values in (("writer alone", alone), ("writer beside retention", beside)):
        print(
            f"{name:24} appends {len(values):6}  p50 {statistics.median(values):6.2f} ms  "
            f"p99 {percentile(values, 0.99):6.2f} ms  max {max(values):7.2f} ms"
        )
    print(f"p99 ratio (beside / alone): {percentile(beside, 0.99) / percentile(alone, 0.99):.2f} (target <= 2)")
    print(
        f"retention deleted {report['deleted']} sessions in {report['seconds']:.1f} s "
        f"({report['deleted'] / report['seconds']:.0f} sessions/s)"
    )


if __name__ == "__main__":
    main()

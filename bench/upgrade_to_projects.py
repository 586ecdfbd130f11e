"""What the upgrade to projects costs on a large database (docs/projects.md, "The upgrade").

    .venv/bin/python bench/upgrade_to_projects.py --sessions 100000 --items 1000000

It makes the database ``hh_bench_upgrade`` on BENCH_POSTGRES_URL's server (default the local one), migrates it to
the state before projects, fills it with rows written in SQL (sessions, their items and timeline rows, a waiting
client action every 100 sessions), then times ``migrate`` to the latest state and prints how long each
migration of the upgrade took. The migrations run in one transaction each, so the session table is locked
for that long: the time is the pause agents see.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATABASE = "hh_bench_upgrade"
BEFORE = [("history", "0008_pop_takes_everything_back"), ("apikeys", "0002_scopes"), ("projects", None)]
UPGRADE = {
    ("projects", "0001_initial"),
    ("projects", "0002_members_of_default"),
    ("history", "0009_session_project"),
    ("history", "0010_no_decide_permission"),
    ("apikeys", "0003_key_project"),
}


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=1_000_000, help="items in all, spread over the sessions")
    return parser.parse_args()


def setup():
    server = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {DATABASE}")
    os.environ["DATABASE_URL"] = server.rsplit("/", 1)[0] + f"/{DATABASE}"
    os.environ.setdefault("DEBUG", "True")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "historyhub.settings")
    import django

    django.setup()


def fill(connection, sessions, items):
    per_session = max(1, items // sessions)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO history_session (id, agent, name, status, metadata_json, metadata_text, parent_call_id,
                created_at, updated_at, next_position, epoch, epoch_start, item_count, history_count,
                waiting_count, last_message, version, run_status_version)
            SELECT 'bench-' || n, 'agent-' || (n %% 7), 'Conversation ' || n, 'active', '{}', '', '',
                now() - n * interval '1 second', now() - n * interval '1 second', %s + 1, 0, 1, %s, %s,
                CASE WHEN n %% 100 = 0 THEN 1 ELSE 0 END, 'hello', %s, 0
            FROM generate_series(1, %s) AS n
            """,
            [per_session, per_session, per_session, per_session, sessions],
        )
        cursor.execute(
            """
            INSERT INTO history_item (session_id, epoch, position, type, role, call_id, injected, received_at, data)
            SELECT 'bench-' || s, 0, p, 'message', 'user', '', false, now(), '{"role": "user", "content": "hello"}'
            FROM generate_series(1, %s) AS s, generate_series(1, %s) AS p
            """,
            [sessions, per_session],
        )
        cursor.execute(
            """
            INSERT INTO history_timelineentry (session_id, epoch, seq, "order", key, type, call_id, created_at,
                data, text, changed_version)
            SELECT 'bench-' || s, 0, p, p, 'message:' || p, 'message', '', now(), '{"role": "user"}', 'hello', 0
            FROM generate_series(1, %s) AS s, generate_series(1, %s) AS p
            """,
            [sessions, per_session],
        )
        cursor.execute(
            """
            INSERT INTO history_clientaction (session_id, call_id, name, arguments_json, description, status,
                created_at, resolved_by, decision, comment, epoch, entry_key)
            SELECT 'bench-' || n, 'c1', 'issue_refund', '{}', '', 'waiting', now(), '', '', '', 0, ''
            FROM generate_series(100, %s, 100) AS n
            """,
            [sessions],
        )
    return per_session * sessions


def main():
    options = arguments()
    setup()
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    started = time.monotonic()
    written = fill(connection, options.sessions, options.items)
    print(f"filled {options.sessions:,} sessions and {written:,} items in {time.monotonic() - started:.1f} s")

    timings = {}

    def progress(action, migration=None, fake=False):
        if action == "apply_start":
            timings[(migration.app_label, migration.name)] = time.monotonic()
        elif action == "apply_success":
            key = (migration.app_label, migration.name)
            timings[key] = time.monotonic() - timings[key]

    executor = MigrationExecutor(connection, progress)
    executor.loader.build_graph()
    started = time.monotonic()
    executor.migrate(executor.loader.graph.leaf_nodes())
    total = time.monotonic() - started
    for key in sorted(timings, key=lambda key: -timings[key]):
        if key in UPGRADE:
            print(f"{timings[key]:8.2f} s  {key[0]} {key[1]}")
    print(f"{total:8.2f} s  migrate in all")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM history_session WHERE project_id = 'default' AND session_id = id")
        print(f"{cursor.fetchone()[0]:,} sessions in the project default with their ids kept")


if __name__ == "__main__":
    main()

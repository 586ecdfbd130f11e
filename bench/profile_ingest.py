"""Where in-process ingest spends its time: cProfile over the benchmark's appends.

    python -m bench.profile_ingest                      # SQLite, in a temporary folder
    python -m bench.profile_ingest --backend postgresql # database hh_bench_profile on BENCH_POSTGRES_URL's server

It migrates an empty database (PostgreSQL's is dropped and made again), appends
the items `make bench`'s ingest appends (8 sessions, batches of 100) through
HistoryHub's domain, as its in-process contender does, and prints where the
time went: grouped into the steps of a write, then the functions with the most
time of their own. The numbers are cProfile's, inflated by its overhead on
every Python call, so read the shares, not the seconds.
"""

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import POSTGRES, django_env
from bench.items import batches, conversation

SESSIONS = 8
DATABASE = "hh_bench_profile"

# The steps of a write: (name, file suffix, function, the caller it counts from, or None for every caller).
STEPS = (
    ("intake: parse and validate the items", "lib/validation.py", "items", None),
    ("the session's row lock", "history/writes.py", "_lock", None),
    ("projection: the dialects turn items into entries", "history/projection.py", "apply", None),
    ("log rows: one INSERT (or COPY)", "lib/bulk.py", "insert", "store"),
    ("timeline rows: one INSERT (or COPY), one UPDATE", "history/timeline.py", "flush", None),
    ("… of which the search index of new messages", "history/matching.py", "index_new_entries", None),
    ("the session's row saved", "lib/bulk.py", "save_fields", None),
    ("commit", "django/db/backends/base/base.py", "commit", None),
    ("JSON written: jsonvalues.dumps, all callers", "lib/jsonvalues.py", "dumps", None),
)


def arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--items", type=int, default=20_000, help="items in all, spread over 8 sessions")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--top", type=int, default=25, help="how many functions to list by own time")
    return parser.parse_args()


def main():
    options = arguments()
    work = Path(tempfile.mkdtemp(prefix="hh-profile-"))
    os.environ.update(django_env(database_url(options.backend, work), work))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from bench import hub

    per_session = options.items // SESSIONS
    work_items = [
        (f"profile-{number}", batches(conversation(f"ingest-{number}", per_session), options.batch))
        for number in range(SESSIONS)
    ]
    hub.append("profile-warmup", conversation("ingest-warmup", options.batch))
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    for session_id, session_batches in work_items:
        for batch in session_batches:
            hub.append(session_id, batch)
    profiler.disable()
    elapsed = time.perf_counter() - started
    report(pstats.Stats(profiler), options, per_session * SESSIONS, elapsed)


def database_url(backend, work):
    if backend == "sqlite":
        return f"sqlite:///{work / 'profile.sqlite3'}"
    import psycopg

    with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{DATABASE}"')
    return f"{POSTGRES}/{DATABASE}"


def report(stats, options, items, elapsed):
    total = cumulative(stats, "history/item_log.py", "append")
    print(f"{items:,} items in batches of {options.batch} on {options.backend}: {elapsed:.2f} s under cProfile")
    print(f"\n{'step of item_log.append':<52} {'s':>7} {'share':>6}")
    print(f"{'the whole append':<52} {total:7.2f} {1:6.0%}")
    for name, file_suffix, function, caller in STEPS:
        seconds = cumulative(stats, file_suffix, function, caller)
        print(f"{name:<52} {seconds:7.2f} {seconds / total:6.0%}")
    print(f"\nthe {options.top} functions with the most time of their own:")
    stats.sort_stats("tottime").print_stats(options.top)


def cumulative(stats, file_suffix, function, caller=None):
    """Cumulative seconds of the function of that name in a file ending so; with ``caller``, only of the calls
    a function of that name made."""
    seconds = 0.0
    for (path, _, name), (_, _, _, total, callers) in stats.stats.items():
        if name != function or not path.replace(os.sep, "/").endswith(file_suffix):
            continue
        if caller is None:
            seconds += total
        else:
            seconds += sum(timing[3] for (_, _, calling), timing in callers.items() if calling == caller)
    return seconds


if __name__ == "__main__":
    sys.exit(main())

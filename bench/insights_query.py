"""Where a long range's approvals query spends its time: the query Insights runs, beside variants of it that
leave out or change one part, each timed in turn on the same data (docs/insights.md, "Performance").

Needs PostgreSQL and the database that ``bench/insights.py --keep`` seeded and kept (Django's test database
for DATABASE_URL). Not run in CI; asserts nothing.

    DEBUG=True DATABASE_URL=postgres://postgres@127.0.0.1:5432/hh_insights .venv/bin/python bench/insights.py --keep
    DEBUG=True DATABASE_URL=postgres://postgres@127.0.0.1:5432/test_hh_insights .venv/bin/python bench/insights_query.py
"""

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "historyhub.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from historyhub.insights import approvals  # noqa: E402
from historyhub.insights.ranges import Filters, Range  # noqa: E402

MEASURES = (
    "percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds), percentile_cont(0.9) WITHIN GROUP (ORDER BY seconds), "
    "MAX(seconds)"
)
FOUR_SETS = "GROUP BY GROUPING SETS ((), (name), (resolved_by), (at))"
KEYS = "name, resolved_by, at, GROUPING(name, resolved_by, at), COUNT(*)"
OUTCOME_COUNTS = ", ".join(
    f"COUNT(*) FILTER (WHERE outcome = '{outcome}')" for outcome in approvals.OUTCOMES if outcome != "expired"
)


def shipped_query(days):
    """The grouping-sets query ``approvals.compute`` runs for the last ``days`` days, with its parameters."""
    now = timezone.now()
    chosen = Range(since=now - timedelta(days=days), until=now, bucket="day")
    with CaptureQueriesContext(connection) as captured:
        approvals.compute("default", chosen, Filters(), now)
    [sql] = [query["sql"] for query in captured.captured_queries if "GROUPING SETS" in query["sql"]]
    # The captured text has its parameters in place: run it as it is.
    return sql


def decided_rows(shipped):
    """The query's rows: the range's decided actions, each with its name, decider, outcome, day and duration."""
    return f"({shipped[shipped.index('FROM (') + 6 : shipped.rindex(') AS measured')]}) AS m"


def variants(shipped):
    rows = decided_rows(shipped)
    return {
        "as shipped: five grouping sets, each with count, p50, p90 and max": shipped,
        "without the per-action-and-outcome set": f"SELECT {KEYS}, {MEASURES} FROM {rows} {FOUR_SETS}",
        "the same four sets, outcomes counted with FILTER in each": (
            f"SELECT {KEYS}, {OUTCOME_COUNTS}, {MEASURES} FROM {rows} {FOUR_SETS}"
        ),
        "the four sets with their outcome counts, no percentile": (
            f"SELECT {KEYS}, {OUTCOME_COUNTS} FROM {rows} {FOUR_SETS}"
        ),
        "one percentile pair over the whole range, no grouping": f"SELECT COUNT(*), {MEASURES} FROM {rows}",
        "reading the range alone (count(*))": f"SELECT COUNT(*) FROM {rows}",
        "the four sets' counts, no percentile or outcome": f"SELECT {KEYS} FROM {rows} {FOUR_SETS}",
        "each group's durations collected (array_agg), sorted after": (
            "SELECT name, resolved_by, at, g, n, "
            "(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(a) v), "
            "(SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY v) FROM unnest(a) v), longest FROM ("
            "SELECT name, resolved_by, at, GROUPING(name, resolved_by, at) g, COUNT(*) n, array_agg(seconds) a, "
            f"MAX(seconds) longest FROM {rows} {FOUR_SETS}) AS grouped"
        ),
        'the four sets, sorted without collation (COLLATE "C")': (
            "SELECT n, r, at, GROUPING(n, r, at), COUNT(*), "
            f'{MEASURES} FROM (SELECT name COLLATE "C" n, resolved_by COLLATE "C" r, at, seconds FROM {rows}) '
            "AS c GROUP BY GROUPING SETS ((), (n), (r), (at))"
        ),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=7)
    arguments = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("PostgreSQL only: DATABASE_URL names the database bench/insights.py --keep kept.")
    shipped = shipped_query(arguments.days)
    timed = variants(shipped)
    seconds = {name: [] for name in timed}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {decided_rows(shipped)}")
        print(f"{cursor.fetchone()[0]:,} actions decided in the last {arguments.days} days")
        for _ in range(arguments.repeat):
            for name, sql in timed.items():
                started = time.perf_counter()
                cursor.execute(sql)
                cursor.fetchall()
                seconds[name].append(time.perf_counter() - started)
    print("| the query | median ms | fastest ms |")
    print("|---|---|---|")
    for name, taken in seconds.items():
        print(f"| {name} | {statistics.median(taken) * 1000:.0f} | {min(taken) * 1000:.0f} |")


if __name__ == "__main__":
    main()

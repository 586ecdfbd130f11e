"""History page cost at page 1 and page 5,000 of a 250,000-item session.

Prints timings and their ratio; it asserts nothing (this machine is shared and
noisy: compare the ratio within one run). Uses its own database:
    DATA_DIR=/tmp/hh-bench .venv/bin/python bench/history_pages.py            # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/historyhub_bench \\
        .venv/bin/python bench/history_pages.py                                # PostgreSQL
"""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DEBUG", "True")
os.environ.setdefault("DATA_DIR", "/tmp/hh-bench")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "historyhub.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from historyhub.history import history_pages, item_log, sessions  # noqa: E402
from historyhub.history.models import Session  # noqa: E402

SESSION_ID = "bench-250k"
ITEMS = 250_000
PAGE_SIZE = 50
REPEATS = 200


def ensure_database():
    if connection.vendor == "postgresql":
        import psycopg

        settings = connection.settings_dict
        with psycopg.connect(
            host=settings["HOST"],
            port=settings["PORT"] or 5432,
            user=settings["USER"],
            dbname="postgres",
            autocommit=True,
        ) as admin:
            if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [settings["NAME"]]).fetchone():
                admin.execute(f'CREATE DATABASE "{settings["NAME"]}"')
    call_command("migrate", verbosity=0)


def fill():
    session = Session.objects.filter(pk=SESSION_ID).first()
    if session is not None and session.item_count >= ITEMS:
        return
    sessions.ensure(agent="bench", session_id=SESSION_ID)
    started = time.perf_counter()
    for start in range(0, ITEMS, 1000):
        batch = []
        for n in range(start, start + 1000):
            if n % 2 == 0:
                batch.append({"id": f"m{n}", "type": "message", "role": "user", "content": f"question {n}"})
            else:
                batch.append(
                    {
                        "id": f"m{n}",
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": f"answer {n}"}],
                    }
                )
        item_log.append(SESSION_ID, batch)
    print(
        f"appended {ITEMS:,} items in {time.perf_counter() - started:.1f} s "
        f"({ITEMS / (time.perf_counter() - started):,.0f} items/s)"
    )


def timed(page):
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        result = history_pages.history(SESSION_ID, page, PAGE_SIZE)
        samples.append(time.perf_counter() - started)
    assert len(result["items"]) == PAGE_SIZE
    return statistics.median(samples) * 1000


def main():
    ensure_database()
    fill()
    last_page = ITEMS // PAGE_SIZE
    print(f"{connection.vendor}: {ITEMS:,} history items, pageSize {PAGE_SIZE}, median of {REPEATS}")
    results = {page: timed(page) for page in (1, 2_500, 5_000)}
    for page, milliseconds in results.items():
        print(f"  page {page:>5,} of {last_page:,}: {milliseconds:.3f} ms")
    print(f"  ratio page 5,000 / page 1: {results[5_000] / results[1]:.2f}")


if __name__ == "__main__":
    main()

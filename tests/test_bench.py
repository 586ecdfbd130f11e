"""``make bench`` end to end at quick sizes on SQLite, so the harness cannot rot.

It checks that every measure ran and made its rows; it never checks a time.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.bench


def run_quick_benchmark(data_dir, output):
    env = {name: value for name, value in os.environ.items() if name != "DATABASE_URL"}
    env["DATA_DIR"] = str(data_dir)
    # One server worker is enough to prove the harness works, and starts in a third of the time.
    env["WEB_CONCURRENCY"] = "1"
    command = [sys.executable, "-m", "bench", "--quick", "--sqlite-only", "--output", str(output)]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def table_rows(document):
    return [line for line in document.splitlines() if line.startswith("| ") and not line.startswith("| measure")]


def test_the_quick_benchmark_measures_everything_on_sqlite_and_writes_one_table(tmp_path):
    output = tmp_path / "bench.md"
    finished = run_quick_benchmark(tmp_path, output)
    assert finished.returncode == 0, finished.stderr[-3000:]

    document = output.read_text()
    assert document in finished.stdout
    assert "SQLite 3." in document and "Data set (SQLite): 1" in document
    rows = table_rows(document)
    measures = [row.split("|")[1].strip() for row in rows]
    for expected in (
        r"ingest 800 items, batches of 100, in process \(SQLite\)",
        r"… HistoryHub's own rows by plain executemany, no Python projection \(SQLite\)",
        r"… over HTTP to the production server, 8 clients \(SQLite\)",
        r"a 3-item turn: HistoryHubSession.add_items over HTTP, p50",
        r"get_items\(limit=50\) on the 1,000-item session, in process \(SQLite\), p50",
        r"… page \d+ \(oldest\)",
        r"dashboard: … search q=chargeback .*",
        r"dashboard: approvals page \(10 waiting\), server time",
        r"… the server worker's RSS growth while it streams",
    ):
        assert any(re.fullmatch(expected, measure) for measure in measures), f"{expected!r} is not among {measures}"
    for row in rows:
        hub = row.split("|")[2].strip()
        assert re.match(r"[\d,.]+ (items/s|ms|s|MB)", hub), row
    assert "SDK SQLiteSession" in document
    assert "Targets:" in document

"""The memory an export takes: RSS growth while exporting one session of 250,000 items (docs/data.md, "Export").

On a PostgreSQL database of its own (dropped and made again), one session's log gets ITEMS items of about
200 bytes each, inserted in SQL; then the whole export (export.lines, what GET /api/v1/export streams) is read
and thrown away, while a thread samples this process's resident set every 10 ms. Prints the RSS before, the
peak during, the growth, the bytes exported and the time. Asserts nothing: the machine is shared.

    .venv/bin/python -m bench.export_memory --items 250000
BENCH_DATABASE_URL: default postgres://postgres@127.0.0.1:5432/historyhub_bench_export.
"""

import argparse
import os
import threading
import time

from bench.retention import fresh_database, setup_django

DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/historyhub_bench_export"


def rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def seed(count):
    from django.core.management import call_command
    from django.db import connection

    from historyhub.history import item_log
    from historyhub.history.models import Session

    call_command("migrate", verbosity=0)
    item_log.append("big", [{"role": "user", "content": "first"}], agent="support")
    text = '{"role":"user","content":"' + "x" * 170 + ' " }'
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO history_item (session_id, epoch, position, type, role, call_id, injected, received_at, data) "
            "SELECT 'big', 0, n, 'message', 'user', '', false, now(), %s FROM generate_series(2, %s) n",
            [text, count],
        )
    Session.objects.filter(pk="big").update(next_position=count + 1, item_count=count)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=250_000)
    args = parser.parse_args()
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE)
    fresh_database(url)
    setup_django(url)
    seed(args.items)
    from historyhub.data import export

    # One small export first, so what every export needs once (imports, compiled queries) is not counted.
    for _ in export.lines(export.selected("default", session_id="nothing")):
        pass
    before = rss_bytes()
    peak, done = [before], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_bytes())
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started, size = time.perf_counter(), 0
    for piece in export.lines(export.selected("default")):
        size += len(piece.encode())
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    mb = 1024 * 1024
    print(f"exported {args.items} items ({size / mb:.1f} MB of JSON Lines) in {seconds:.1f} s")
    print(f"RSS before {before / mb:.1f} MB, peak {peak[0] / mb:.1f} MB, growth {(peak[0] - before) / mb:.1f} MB")


if __name__ == "__main__":
    main()

"""Streaming: GET …/items of the whole long session from the production server,
while the server's worker processes' memory is watched.

The growth reported is the largest of any worker's: its highest resident set
size during the request less what it held just before. Beside it, taking
turns with it, the SDK store's get_items() of the same session in process,
and how much this process grew to hold its answer.
"""

import http.client
import os
import threading
import time
from urllib.parse import urlsplit

from bench import hub, seed
from bench.report import Row, megabytes, ratio
from bench.sdk import SdkStore
from bench.server import descendants, rss_bytes
from bench.timing import median

TARGET_BYTES = 50 * 2**20
READ_SIZE = 64 * 1024


class PeakMemory:
    """The highest resident set size of some processes while a block runs, each against its size before."""

    def __init__(self, pids, every=0.005):
        self.pids = pids
        self.every = every
        self.before = {pid: rss_bytes(pid) for pid in pids}
        self.peak = dict(self.before)
        self.running = True
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        while self.running:
            for pid in self.pids:
                self.peak[pid] = max(self.peak[pid], rss_bytes(pid))
            time.sleep(self.every)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()

    @property
    def growth(self):
        return max(self.peak[pid] - self.before[pid] for pid in self.pids)


def stream_all(base_url, api_key, session_id):
    """GET every item, reading the answer as it comes; returns the bytes received."""
    address = urlsplit(base_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=300)
    connection.request("GET", f"/api/v1/sessions/{session_id}/items", headers={"Authorization": f"Bearer {api_key}"})
    answer = connection.getresponse()
    if answer.status != 200:
        raise RuntimeError(f"GET …/items answered {answer.status}")
    received = 0
    while chunk := answer.read(READ_SIZE):
        received += len(chunk)
    connection.close()
    return received


def run(job, progress):
    if not job.server_url:
        return []
    sizes = job.size
    api_key = hub.issue_api_key()
    workers = descendants(job.server_pid) or [job.server_pid]
    sdk = SdkStore(job.backend, job.sdk_location)
    times, growths, sdk_times, sdk_growths, received = [], [], [], [], 0
    for _ in range(sizes.stream_repeats):
        with PeakMemory(workers) as memory:
            started = time.perf_counter()
            received = stream_all(job.server_url, api_key, seed.BIG_SESSION)
            times.append(time.perf_counter() - started)
        growths.append(memory.growth)
        with PeakMemory([os.getpid()]) as memory:
            started = time.perf_counter()
            sdk.get_items(seed.BIG_SESSION)
            sdk_times.append(time.perf_counter() - started)
        sdk_growths.append(memory.growth)
    sdk.close()
    progress(f"streaming: {sizes.stream_repeats} times")
    what = f"all {sizes.big_items:,} items of the long session"
    return [
        Row(
            f"stream {what} over HTTP (GET …/items, {megabytes(received)})",
            f"{median(times):.2f} s",
            f"{sdk.name}.get_items() in process {median(sdk_times):.2f} s",
            ratio(median(times), median(sdk_times)),
        ),
        Row(
            "… the server worker's RSS growth while it streams",
            megabytes(max(growths)),
            f"this process's growth for get_items() {megabytes(max(sdk_growths))}",
            target="under 50 MB",
            met=max(growths) < TARGET_BYTES,
        ),
    ]

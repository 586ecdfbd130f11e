"""Client processes that append over HTTP at the same moment, through HistoryHub's Python client.

Each process is started once and kept for every round (spawned, so it holds
nothing of Django); it makes its items before the start line, so what is
timed is the requests alone: from the moment every process is ready to the
moment the last one is done.
"""

import multiprocessing
import threading
import time
import traceback

from bench import hub_client
from bench.items import batches, conversation

START_TIMEOUT = 300


def _client(base_url, api_key, tasks, results, start_line):
    client = hub_client.connect(base_url, api_key)
    while True:
        task = tasks.get()
        if task is None:
            return
        try:
            work = [(session_id, batches(conversation(seed, count), size)) for session_id, seed, count, size in task]
            start_line.wait(START_TIMEOUT)
            for session_id, session_batches in work:
                for batch in session_batches:
                    hub_client.add_items(client, session_id, batch)
            results.put(None)
        except Exception:
            start_line.abort()
            results.put(traceback.format_exc())


class Clients:
    def __init__(self, count, base_url, api_key):
        context = multiprocessing.get_context("spawn")
        self.count = count
        self.tasks = [context.Queue() for _ in range(count)]
        self.results = context.Queue()
        self.start_line = context.Barrier(count + 1)
        self.processes = [
            context.Process(target=_client, args=(base_url, api_key, tasks, self.results, self.start_line), daemon=True)
            for tasks in self.tasks
        ]
        for process in self.processes:
            process.start()

    def append(self, sessions, batch_size):
        """Append [(session_id, seed, count), …] spread over the clients; returns the seconds it took."""
        shares = [[] for _ in range(self.count)]
        for index, (session_id, seed, count) in enumerate(sessions):
            shares[index % self.count].append((session_id, seed, count, batch_size))
        for tasks, share in zip(self.tasks, shares, strict=True):
            tasks.put(share)
        try:
            self.start_line.wait(START_TIMEOUT)
        except threading.BrokenBarrierError:
            raise RuntimeError("an HTTP client failed:\n" + str(self.results.get(timeout=30))) from None
        started = time.perf_counter()
        failures = [failure for failure in (self.results.get() for _ in range(self.count)) if failure]
        seconds = time.perf_counter() - started
        if failures:
            raise RuntimeError("an HTTP client failed:\n" + failures[0])
        return seconds

    def close(self):
        for tasks in self.tasks:
            tasks.put(None)
        for process in self.processes:
            process.join(30)

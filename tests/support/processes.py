"""Work run in forked processes released at once, as separate server workers would run it."""

import multiprocessing
import os
import traceback

from django.db import connections

PROCESSES = 8
# Guards against a child that never reports, so a broken run fails instead of hanging.
REPORT_TIMEOUT_SECONDS = 120


def close_connections():
    """Close every connection and connection pool, so no socket or file handle crosses a fork."""
    connections.close_all()
    for connection in connections.all():
        if hasattr(connection, "close_pool"):
            connection.close_pool()


def run_together(work):
    """Run ``work(index)`` in PROCESSES forked processes released at once; returns {index: result}."""
    close_connections()
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(PROCESSES, timeout=REPORT_TIMEOUT_SECONDS)
    reports = context.Queue()
    children = [context.Process(target=_child, args=(work, index, barrier, reports)) for index in range(PROCESSES)]
    for child in children:
        child.start()
    collected = [reports.get(timeout=REPORT_TIMEOUT_SECONDS) for _ in children]
    for child in children:
        child.join()
    failures = [report for outcome, _, report in collected if outcome == "error"]
    assert not failures, failures[0]
    return {index: result for _, index, result in collected}


def _child(work, index, barrier, reports):
    try:
        connections.close_all()
        barrier.wait()
        reports.put(("ok", index, work(index)))
    except BaseException:
        reports.put(("error", index, traceback.format_exc()))
    finally:
        close_connections()
        reports.close()
        reports.join_thread()
        os._exit(0)

"""A deadline is over when its time is, whoever notices first (historyhub.lib.deadlines)."""

import socket
import time

from historyhub.lib.deadlines import Deadline


def test_a_deadline_whose_time_came_has_passed_before_the_reaper_cuts():
    # Not entered: no reaper cuts it. A socket's own timeout of the same length, started a moment later, can end
    # an exchange before the reaper's thread gets its turn on a busy machine; that exchange took too long all the
    # same, and says so (the outbox's "No whole answer within …").
    deadline = Deadline(0.05)
    assert not deadline.passed
    time.sleep(0.1)
    assert deadline.passed


def test_a_block_that_ended_in_time_stays_in_time_however_late_it_is_judged():
    with Deadline(0.2) as deadline:
        pass
    time.sleep(0.3)
    assert not deadline.passed


def test_a_socket_timing_out_with_the_deadline_is_the_deadline_passing():
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        with Deadline(0.3) as deadline:
            # Connected after the deadline began and silent after: the socket's own 0.3 s ends its read later than
            # the deadline's time, however the two threads are scheduled.
            client = socket.create_connection(listener.getsockname(), timeout=0.3)
            try:
                client.recv(1)
            except OSError:
                pass
            finally:
                client.close()
        assert deadline.passed
    finally:
        listener.close()

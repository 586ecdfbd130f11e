"""The `deliver` command as its own processes on the test database: on PostgreSQL several workers share the
outbox and send each row once; a worker killed mid-delivery leaves its row to be sent after the lease; a
committed change is delivered by a worker started after it (docs/notifications.md, "The worker")."""

import os
import re
import signal
import subprocess
import sys
import threading
from collections import Counter
from datetime import UTC
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection

from historyhub.history import client_actions, sessions
from historyhub.notifications import channels
from historyhub.notifications.models import Delivery, DeliveryStatus
from tests.support.servers import ROOT, database_url
from tests.support.tiny_server import TinyServer
from tests.support.waiting import until

pytestmark = pytest.mark.django_db(transaction=True)
ACTIONS = 60


def start_worker(**extra):
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "True",
        "WEBHOOK_RETRY_DELAYS": "0,0,0",
        **extra,
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "deliver"],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def stop(worker):
    if worker.poll() is None:
        worker.kill()
    worker.wait(10)
    worker.stderr.close()


def open_actions(count, prefix="call"):
    sessions.ensure(agent="support", project="default", session_id="support-42")
    for index in range(count):
        client_actions.open_action("support-42", call_id=f"{prefix}-{index}", name="send_email", arguments={})


def webhook_channel(url):
    return channels.create("default", "webhook", actor="tests", name="ops", events=["client_action.opened"], url=url)


@pytest.fixture
def workers():
    started = []

    def start(**extra):
        started.append(start_worker(**extra))
        return started[-1]

    yield start
    for worker in started:
        stop(worker)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="several workers share the outbox on PostgreSQL")
def test_two_workers_deliver_every_row_exactly_once(workers):
    with TinyServer([]) as receiver:
        webhook_channel(receiver.url)
        workers()
        workers()
        open_actions(ACTIONS)
        until(lambda: len(receiver.requests) >= ACTIONS, 60, "every delivery")
        until(lambda: not Delivery.objects.exclude(status=DeliveryStatus.DELIVERED).exists(), 30, "every row recorded")
        sent = Counter(request["headers"]["webhook-id"] for request in receiver.requests)
        assert len(sent) == ACTIONS
        assert max(sent.values()) == 1


def test_a_committed_change_is_delivered_by_a_worker_started_after_it(workers):
    with TinyServer([]) as receiver:
        webhook_channel(receiver.url)
        open_actions(3)
        workers()
        until(lambda: len(receiver.requests) == 3, 30, "the three deliveries")
        assert {request["body"]["data"]["callId"] for request in receiver.requests} == {"call-0", "call-1", "call-2"}


class HoldingReceiver:
    """Holds the first request without answering until released; answers 200 to every later one."""

    def __init__(self):
        self.received = []
        self.first_arrived = threading.Event()
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                outer.received.append(self.headers["webhook-id"])
                if len(outer.received) == 1:
                    outer.first_arrived.set()
                    outer.release.wait(30)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_a_row_claimed_by_a_killed_worker_is_delivered_after_the_lease(workers):
    receiver = HoldingReceiver()
    try:
        webhook_channel(receiver.url)
        open_actions(1)
        first = workers(NOTIFICATIONS_LEASE_SECONDS="2")
        assert receiver.first_arrived.wait(30), "the first worker never sent the row"
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        row = Delivery.objects.get()
        assert row.status == DeliveryStatus.PENDING
        assert row.claimed_until is not None
        workers(NOTIFICATIONS_LEASE_SECONDS="2")
        until(lambda: Delivery.objects.get().status == DeliveryStatus.DELIVERED, 30, "the delivery after the lease")
        assert receiver.received == [row.webhook_id, row.webhook_id]
        attempt = Delivery.objects.get().attempts.get()
        assert attempt.at >= row.claimed_until
    finally:
        receiver.close()


def test_the_worker_says_it_started_and_what_each_delivery_did():
    with TinyServer([(503, {}, {}), (200, {}, {})]) as receiver:
        webhook_channel(receiver.url)
        open_actions(2)
        environment = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "WEBHOOKS_ALLOW_PRIVATE_NETWORKS": "True",
            "WEBHOOK_RETRY_DELAYS": "60,60",
            # One slot: the two deliveries go one after the other, so the receiver's answers are theirs in order.
            "NOTIFICATIONS_SEND_THREADS": "1",
            "LOG_LEVEL": "INFO",
        }
        done = subprocess.run(
            [sys.executable, "manage.py", "deliver", "--once"],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
        )
    first, second = Delivery.objects.order_by("pk")
    lines = done.stderr.splitlines()
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"delivery worker started: pid \d+, 1 send slot, at most \d+ per destination, .+", lines[0])
    assert lines.count("delivery worker: claimed 1 delivery") == 2
    again = first.next_attempt_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    assert any(
        line.startswith(f"delivery {first.pk} (client_action.opened) to channel 'ops' (webhook): not delivered (503")
        and f"tried again at {again}" in line
        for line in lines
    ), lines
    assert f"delivery {second.pk} (client_action.opened) to channel 'ops' (webhook): delivered, 200" in lines
    assert done.stdout == "Sent 2 deliveries.\n"

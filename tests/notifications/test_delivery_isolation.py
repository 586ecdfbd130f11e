"""One destination never delays another, on the production server (bin/start) with real sockets
(docs/notifications.md, "One destination never delays another").

A receiver in project beta answers ``HTTP/1.1 200 OK`` and then one byte a second; one in project alpha reads the
request and never answers. While both hold their deliveries, every other channel's deliveries, of both projects,
arrive: asserted by the order of what the receivers saw (each healthy delivery arrives before either bad
receiver's first attempt is over) and by counts, never by a time. The bad receivers' attempts then end at their
deadline however the receiver paces its bytes, and each destination never has more than its slots at once.
"""

import json
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection

from historyhub.apikeys.models import ApiKey
from historyhub.history import client_actions, sessions
from historyhub.lib.session_keys import session_key
from historyhub.notifications import channels
from historyhub.notifications.delivery_worker import Worker
from historyhub.notifications.models import Attempt, Delivery, DeliveryStatus
from historyhub.projects.models import Project
from tests.support.actors import make_member
from tests.support.servers import HTTPS, ProductionServer, database_url, fetch, production_environment
from tests.support.waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

HEALTHY_PER_PROJECT = 3
GOOD_ACTIONS = 5
BAD_ACTIONS = 3
SLOTS = 2


class Log:
    """What every receiver saw, in one order."""

    def __init__(self):
        self.lock = threading.Lock()
        self.events = []
        self.open = {}
        self.most_open = {}

    def add(self, receiver, what, detail=""):
        with self.lock:
            self.events.append((receiver, what, detail))
            if what == "connected":
                self.open[receiver] = self.open.get(receiver, 0) + 1
                self.most_open[receiver] = max(self.most_open.get(receiver, 0), self.open[receiver])
            elif what == "ended":
                self.open[receiver] -= 1

    def count(self, receiver, what):
        with self.lock:
            return sum(1 for name, kind, _ in self.events if name == receiver and kind == what)

    def index_of_first(self, receiver, what):
        with self.lock:
            return next(i for i, (name, kind, _) in enumerate(self.events) if name == receiver and kind == what)


class Receiver:
    """A webhook receiver on a port of its own: ``healthy`` answers 200 at once, ``drip`` answers the status line
    and then a byte a second, ``silent`` never answers. The last two hold the connection until it is closed."""

    def __init__(self, name, mode, log):
        outer = self
        self.name = name

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if mode == "healthy":
                    log.add(name, "arrived", body["data"]["callId"])
                    self.send_response(200)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                log.add(name, "connected", body["data"]["callId"])
                if mode == "drip":
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    self.wfile.flush()
                outer.hold(self.connection, drip=mode == "drip")
                log.add(name, "ended", body["data"]["callId"])
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.stopping = threading.Event()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def hold(self, connection, drip):
        """Until the sender closes the connection (or the test ends): a byte a second, or nothing."""
        while not self.stopping.is_set():
            readable, _, _ = select.select([connection], [], [], 1)
            if readable and not connection.recv(1, 0):
                return
            if drip:
                try:
                    connection.sendall(b"X")
                except OSError:
                    return

    def close(self):
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def open_actions(server, key, agent, prefix, count):
    headers = {**HTTPS, "Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    for number in range(count):
        session_id = f"{prefix}-{number}"
        body = json.dumps({"sessionId": session_id, "agent": agent}).encode()
        assert fetch(f"{server.url}/api/v1/sessions", headers, body).status == 201
        action = json.dumps({"callId": session_id, "name": "refund", "arguments": {"n": number}}).encode()
        answer = fetch(f"{server.url}/api/v1/sessions/{session_id}/client-actions", headers, action)
        assert answer.status == 201, answer.read()


def webhook(project, url, agent):
    return channels.create(
        project,
        "webhook",
        actor="tests",
        name=f"{agent} hook",
        events=["client_action.opened"],
        url=url,
        agents=[agent],
    )


def test_a_dripping_and_a_silent_receiver_delay_no_other_channel_of_any_project(tmp_path):
    log = Log()
    keys = {}
    healthy = []
    for project in ("alpha", "beta"):
        Project.objects.create(id=project, name=project.title())
        keys[project] = ApiKey.issue(f"{project} agent", "write", project=project)[1]
        for number in range(HEALTHY_PER_PROJECT):
            receiver = Receiver(f"{project}-healthy-{number}", "healthy", log)
            healthy.append(receiver)
            webhook(project, receiver.url, "good")
    dripping = Receiver("beta-drip", "drip", log)
    silent = Receiver("alpha-silent", "silent", log)
    webhook("beta", dripping.url, "bad")
    webhook("alpha", silent.url, "bad")
    environment = production_environment(
        tmp_path, DATABASE_URL=database_url(), WEBHOOKS_ALLOW_PRIVATE_NETWORKS="True", WEBHOOK_RETRY_DELAYS="600"
    )
    try:
        with ProductionServer(environment, tmp_path / "server.log", workers=2) as server:
            # The bad receivers first: each takes its destination's two slots, a third delivery each waits.
            open_actions(server, keys["beta"], "bad", "beta-bad", BAD_ACTIONS)
            open_actions(server, keys["alpha"], "bad", "alpha-bad", BAD_ACTIONS)
            until(lambda: log.count("beta-drip", "connected") == SLOTS, 60, "the dripping receiver's two attempts")
            until(lambda: log.count("alpha-silent", "connected") == SLOTS, 60, "the silent receiver's two attempts")

            open_actions(server, keys["alpha"], "good", "alpha-good", GOOD_ACTIONS)
            open_actions(server, keys["beta"], "good", "beta-good", GOOD_ACTIONS)
            expected = 2 * HEALTHY_PER_PROJECT * GOOD_ACTIONS
            until(
                lambda: sum(log.count(receiver.name, "arrived") for receiver in healthy) == expected,
                120,
                "every healthy delivery",
            )

            # Every healthy delivery arrived while the bad receivers still held their first attempts.
            with log.lock:
                events = list(log.events)
            last_healthy = max(i for i, (_, what, _) in enumerate(events) if what == "arrived")
            for bad in ("beta-drip", "alpha-silent"):
                ended = [i for i, (name, what, _) in enumerate(events) if name == bad and what == "ended"]
                assert not ended or last_healthy < ended[0], f"{bad}'s first attempt ended before the healthy ones"
            arrivals = {(name, detail) for name, what, detail in events if what == "arrived"}
            assert len(arrivals) == expected

            # The deadline ends the bad attempts, the dripping one too; then their third deliveries get their turn.
            until(lambda: log.count("beta-drip", "connected") == BAD_ACTIONS, 120, "the dripping receiver's third")
            until(lambda: log.count("alpha-silent", "connected") == BAD_ACTIONS, 120, "the silent receiver's third")
            for url in (dripping.url, silent.url):
                attempts = Attempt.objects.filter(delivery__channel__url=url)
                until(lambda attempts=attempts: attempts.count() == BAD_ACTIONS, 120, "the bad attempts recorded")
                assert {attempt.excerpt for attempt in attempts} == {
                    "No whole answer within 15 s (connecting, sending and reading)."
                }
                assert {attempt.status for attempt in attempts} == {None}
            assert log.most_open["beta-drip"] == SLOTS and log.most_open["alpha-silent"] == SLOTS
            delivered = Delivery.objects.filter(status=DeliveryStatus.DELIVERED)
            assert delivered.count() == expected
            assert set(delivered.values_list("channel__project_id", flat=True)) == {"alpha", "beta"}
    finally:
        for receiver in [*healthy, dripping, silent]:
            receiver.close()


class Dripper:
    """A server that reads what comes, then sends ``first`` and a byte every half second, forever: an SMTP
    server's greeting or Slack's API, paced so no read ever times out."""

    def __init__(self, first):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.first = first
        self.stopping = threading.Event()
        self.connections = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.drip, args=(connection,), daemon=True).start()

    def drip(self, connection):
        with connection:
            try:
                if not self.first.startswith(b"220"):
                    connection.recv(65536)
                connection.sendall(self.first)
                while not self.stopping.wait(0.5):
                    connection.sendall(b"X")
            except OSError:
                return

    def close(self):
        self.stopping.set()
        self.listener.close()


def deliver_in_a_thread():
    """``deliver_due`` on a thread of its own, returned once it has ended (or after a minute, when it hangs)."""

    def deliver():
        try:
            Worker().deliver_due()
        finally:
            connection.close()

    thread = threading.Thread(target=deliver, daemon=True)
    thread.start()
    thread.join(60)
    return thread


def test_an_smtp_server_that_drips_its_greeting_costs_an_email_attempt_its_deadline(
    settings, api, admin_api, session_id
):
    dripper = Dripper(b"220")
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", dripper.port, 2
    try:
        person = make_member("ana", "approver")
        person.email = "ana@example.com"
        person.save()
        answer = admin_api.post("channels", {"kind": "email", "name": "mail", "events": ["client_action.opened"]})
        assert answer.status_code == 201, answer.content
        opened = api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "refund", "arguments": {}})
        assert opened.status_code == 201
        assert not deliver_in_a_thread().is_alive(), "the attempt never ended"
        # Four attempts (the tests' retry schedule is 0, 0, 0), each ended by its deadline, then failed.
        excerpts = list(Attempt.objects.values_list("excerpt", flat=True))
        assert excerpts == ["No whole answer within 2 s (connecting, sending and reading)."] * 4
        assert dripper.connections >= 4
        assert Delivery.objects.get().status == DeliveryStatus.FAILED
    finally:
        dripper.close()


def test_a_slack_api_that_drips_its_answer_costs_a_slack_attempt_its_deadline(settings, api, admin_api, session_id):
    dripper = Dripper(b"HTTP/1.1 200 OK\r\n")
    settings.SLACK_API_URL, settings.WEBHOOK_TIMEOUT_SECONDS = f"http://127.0.0.1:{dripper.port}/", 2
    # The Slack app is the installation's.
    settings.SLACK_BOT_TOKEN, settings.SLACK_SIGNING_SECRET = "xoxb-test-token", "signing-secret"
    try:
        answer = admin_api.post(
            "channels",
            {
                "kind": "slack",
                "name": "approvals",
                "events": ["client_action.opened"],
                "slackChannel": "C42",
            },
        )
        assert answer.status_code == 201, answer.content
        opened = api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "refund", "arguments": {}})
        assert opened.status_code == 201
        assert not deliver_in_a_thread().is_alive(), "the attempt never ended"
        # Four attempts (the tests' retry schedule is 0, 0, 0), each ended by its deadline, then failed.
        excerpts = list(Attempt.objects.values_list("excerpt", flat=True))
        assert excerpts == ["No whole answer within 2 s (connecting, sending and reading)."] * 4
        assert dripper.connections >= 4
        assert Delivery.objects.get().status == DeliveryStatus.FAILED
    finally:
        dripper.close()


def test_channels_of_two_projects_posting_to_one_host_and_port_share_its_slots(settings):
    """The destination is the receiver's host and port, whoever's channel posts there: six deliveries of two
    projects' channels to one silent receiver hold two attempts open at a time, and a healthy channel's
    delivery arrives before the first of them ends."""
    settings.NOTIFICATIONS_SEND_THREADS, settings.WEBHOOK_TIMEOUT_SECONDS = 8, 2
    settings.WEBHOOK_RETRY_DELAYS = [600]
    log = Log()
    silent, healthy = Receiver("silent", "silent", log), Receiver("healthy", "healthy", log)
    try:
        for project in ("alpha", "beta"):
            Project.objects.create(id=project, name=project.title())
            webhook(project, silent.url, "bad")
            webhook(project, silent.url.replace("/hook", "/other-path"), "bad")
        webhook("beta", healthy.url, "good")
        for project in ("alpha", "beta"):
            sessions.ensure(agent="bad", project=project, session_id="s-bad")
            client_actions.open_action(session_key(project, "s-bad"), call_id="c-bad", name="refund", arguments={})
        sessions.ensure(agent="good", project="beta", session_id="s-good")
        client_actions.open_action(session_key("beta", "s-good"), call_id="c-good", name="refund", arguments={})

        assert not deliver_in_a_thread().is_alive(), "the attempts never ended"
        assert log.count("silent", "connected") == 4
        assert log.most_open["silent"] == settings.NOTIFICATIONS_DESTINATION_SLOTS == 2
        assert log.index_of_first("healthy", "arrived") < log.index_of_first("silent", "ended")
        assert Attempt.objects.filter(delivery__channel__url__startswith=silent.url.removesuffix("/hook")).count() == 4
    finally:
        silent.close()
        healthy.close()

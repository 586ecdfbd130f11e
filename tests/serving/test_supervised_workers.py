"""The notification worker and the sweep stay alive under bin/start (docs/operations.md, "Workers that stay
alive"): SIGKILLed, each is started again and runs (a new pid in its heartbeat; the worker delivers again),
``/healthz/details`` says when each last ran, and both end with the server."""

import os
import signal

import pytest

from historyhub.apikeys.models import ApiKey
from historyhub.notifications import channels
from historyhub.projects.models import Project
from tests.support.servers import HTTPS, ProductionServer, database_url, fetch, production_environment
from tests.support.tiny_server import TinyServer
from tests.support.waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

# Generous: what is asserted is that each came back, not how fast (the documented time is 5 s).
BACK_SECONDS = 60


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child the supervisor has not reaped yet is a zombie: dead all the same.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def workers(server):
    return server.details()["workers"] or {}


def pid_of(server, name):
    return workers(server).get(name, {}).get("pid")


def open_action(server, key, session_id):
    headers = {**HTTPS, "Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    body = f'{{"sessionId": "{session_id}", "agent": "support"}}'.encode()
    assert fetch(f"{server.url}/api/v1/sessions", headers, body).status == 201
    action = f'{{"callId": "{session_id}", "name": "refund", "arguments": {{}}}}'.encode()
    assert fetch(f"{server.url}/api/v1/sessions/{session_id}/client-actions", headers, action).status == 201


def test_a_killed_worker_and_a_killed_sweep_come_back_and_run_and_end_with_the_server(tmp_path, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = True
    Project.objects.create(id="gamma", name="Gamma")
    key = ApiKey.issue("gamma agent", "write", project="gamma")[1]
    environment = production_environment(
        tmp_path, DATABASE_URL=database_url(), WEBHOOKS_ALLOW_PRIVATE_NETWORKS="True", SWEEP_SECONDS="1"
    )
    with TinyServer([]) as receiver:
        channels.create(
            "gamma", "webhook", actor="tests", name="ops", events=["client_action.opened"], url=receiver.url
        )
        server = ProductionServer(environment, tmp_path / "server.log")
        with server:
            until(lambda: {"deliver", "sweep"} <= set(workers(server)), BACK_SECONDS, "both heartbeats")
            first = workers(server)
            for name in ("deliver", "sweep"):
                assert first[name]["lastRunAt"].endswith("Z") and first[name]["host"]
            open_action(server, key, "before")
            until(lambda: len(receiver.requests) == 1, BACK_SECONDS, "the first delivery")

            for name in ("deliver", "sweep"):
                killed = pid_of(server, name)
                os.kill(killed, signal.SIGKILL)
                until(lambda k=killed: not alive(k), BACK_SECONDS, f"the end of the killed {name}")
                until(lambda n=name, k=killed: pid_of(server, n) not in (None, k), BACK_SECONDS, f"{name} again")
                assert alive(pid_of(server, name))

            # The new worker delivers what is opened after the kill.
            open_action(server, key, "after")
            until(lambda: len(receiver.requests) == 2, BACK_SECONDS, "the delivery after the kill")
            assert [request["body"]["data"]["callId"] for request in receiver.requests] == ["before", "after"]
            running = [pid_of(server, "deliver"), pid_of(server, "sweep")]
        # Stopped with the server.
        until(lambda: not any(alive(pid) for pid in running), BACK_SECONDS, "the workers' end with the server")

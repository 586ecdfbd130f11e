"""/healthz and /healthz/details on the production server (bin/start), answered before Django
(historyhub/serving/health.py)."""

import asyncio
import contextlib
import json
import shutil
import socket

import pytest
from django.db import connection
from psycopg_pool import PoolTimeout

from historyhub.serving.health import OK, Checks
from tests.support.servers import (
    HTTPS,
    ProductionServer,
    database_url,
    fetch,
    production_environment,
    shared_static_root,
)
from tests.support.waiting import until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def static_root(tmp_path_factory):
    """The static files, this module's own: a test takes their manifest away."""
    root = tmp_path_factory.mktemp("health") / "static"
    shutil.copytree(shared_static_root(), root)
    return root


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory, static_root):
    folder = tmp_path_factory.mktemp("health")
    environment = production_environment(folder, DATABASE_URL=database_url(), STATIC_ROOT=str(static_root))
    # On every address, so a test can come from one that is not loopback.
    with ProductionServer(environment, folder / "server.log", host="0.0.0.0") as server:
        yield server


def health(server):
    answer = fetch(f"{server.url}/healthz", {})
    return answer.status, json.load(answer)


def test_healthz_says_whether_the_server_is_up_and_nothing_more(server):
    assert health(server) == (200, {"status": "ok"})
    assert {"no-store", "private"} <= {
        part.strip() for part in fetch(f"{server.url}/healthz", {}).headers["Cache-Control"].split(",")
    }


def outside_address():
    """This machine's address on its network (not loopback), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # sends nothing: this only picks the route
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def test_the_details_are_answered_only_to_a_request_made_on_this_machine(server):
    details = server.details()
    assert set(details) == {"worker", "subscribers", "parked", "workers", "replica"}
    assert isinstance(details["worker"], int) and details["subscribers"] == details["parked"] == 0
    # No DATABASE_REPLICA_URL: no replica to report (tests/cluster reports a real one's lag).
    assert details["replica"] is None

    # Relayed by a proxy on this machine: the request comes from loopback, with forwarding headers.
    for relayed in ({"X-Forwarded-For": "203.0.113.5"}, {"Forwarded": "for=203.0.113.5"}, {"X-Real-IP": "203.0.113.5"}):
        answer = fetch(f"{server.url}/healthz/details", {**HTTPS, **relayed})
        assert answer.status == 404 and b"worker" not in answer.read(), relayed
    # From another machine (this one's own network address stands in for it, when it has one).
    if (address := outside_address()) is not None:
        answer = fetch(f"http://{address}:{server.port}/healthz/details", HTTPS)
        assert answer.status == 404 and b"worker" not in answer.read()


def test_healthz_says_not_ready_while_the_static_files_manifest_is_missing(server, static_root):
    manifest = static_root / "staticfiles.json"
    moved = manifest.rename(static_root.parent / "staticfiles.json")
    try:
        assert health(server) == (503, {"status": "not ready"})
    finally:
        moved.rename(manifest)
    until(lambda: health(server) == (200, {"status": "ok"}), message="healthz ok again")


def test_the_check_answers_while_requests_hold_every_pooled_connection():
    """A pool that requests keep busy is load, not illness: the check asks on a connection of its own. (On the
    pool, it waited DATABASE_POOL_TIMEOUT for a connection and answered unavailable: a balancer took the server
    out and cut the waits it held, docs/scaling.md.)"""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's connection pool")
    pool = connection.pool
    taken = []
    with contextlib.suppress(PoolTimeout):
        while len(taken) <= pool.max_size:
            taken.append(pool.getconn(timeout=0.5))
    checks = Checks()
    try:
        assert asyncio.run(checks.status()) == OK
    finally:
        for held in taken:
            pool.putconn(held)
        checks.forget()

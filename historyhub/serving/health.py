"""``/healthz`` and ``/healthz/details``, answered on the event loop before Django, without the request threads.

- ``/healthz``, for anyone (a container's probe, a load balancer), before host validation and the
  HTTPS redirect: 200 ``{"status": "ok"}`` when the database answers ``SELECT 1`` and the static
  files are collected; 503 ``{"status": "not ready"}`` while the static files' manifest is missing
  (every page would answer 500); 503 ``{"status": "unavailable"}`` when the database fails or does
  not answer within CHECK_SECONDS. It says nothing more: why is logged.
- ``/healthz/details``, only for a request made on this machine (see ``on_this_machine``): the
  worker's pid, the waits and live streams it holds open, and when each worker beside the server
  (the notification worker, the sweep) last ran (``heartbeats``; null when the database does not
  answer), and the replica's lag and whether pages read it (null when there is none;
  docs/scaling.md). To anyone else it does not exist: the request goes on to Django, which answers 404.

The check runs on one thread of its own, whatever the request threads are doing; probes that come
while it runs share its result, so a flood of probes makes one query at a time. On PostgreSQL it asks on a
connection of its own, outside the requests' pool: a pool that a burst of requests keeps busy is load, not
illness, and a load balancer that took it for illness would cut every wait the server holds
(docs/scaling.md, "The balancer"). The details' reads run on another thread, so they never delay a probe.
"""

import asyncio
import ipaddress
import logging
import os
from concurrent.futures import ThreadPoolExecutor

import psycopg
from django.db import connection
from django.http import JsonResponse

from historyhub import live
from historyhub.databases import replica
from historyhub.serving import answers, heartbeats, static_files

logger = logging.getLogger(__name__)

CHECK_SECONDS = 3
OK, NOT_READY, UNAVAILABLE = "ok", "not ready", "unavailable"
# Headers a proxy adds: a request that carries one was relayed, whatever address it came from.
FORWARDING_HEADERS = {b"forwarded", b"x-forwarded-for", b"x-forwarded-host", b"x-forwarded-proto", b"x-real-ip"}


async def answered(scope, send):
    """Answer the request if it is for /healthz or (from this machine) /healthz/details; whether it was."""
    if scope["path"] == "/healthz":
        status = await checks.status()
        await answers.send(send, JsonResponse({"status": status}, status=200 if status == OK else 503))
        return True
    if scope["path"] == "/healthz/details" and on_this_machine(scope):
        details = {
            "worker": os.getpid(),
            "subscribers": live.hub.subscriber_count(),
            "parked": live.hub.parked_count(),
            "workers": await checks.last_runs(),
            "replica": await checks.replica(),
        }
        await answers.send(send, JsonResponse(details))
        return True
    return False


def on_this_machine(scope):
    """Whether the request comes from a loopback address and was not relayed by a proxy.

    A proxy on this machine connects from loopback too, but it adds forwarding headers (behind
    one, BEHIND_HTTPS_PROXY needs X-Forwarded-Proto), so what it relays is never answered here.
    """
    client = scope.get("client")
    try:
        loopback = client is not None and ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        loopback = False
    return loopback and not any(name in FORWARDING_HEADERS for name, _ in scope["headers"])


class Checks:
    def __init__(self):
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="healthz")
        self.details_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="healthz-details")
        self.running = None
        self.last = OK
        # The check's own PostgreSQL connection, used only on the check's thread; None until the first check and
        # after a failure (the next check connects afresh).
        self.own = None

    async def status(self):
        loop = asyncio.get_running_loop()
        if self.running is None or self.running.done() or self.running.get_loop() is not loop:
            self.running = asyncio.wrap_future(self.executor.submit(self.check), loop=loop)
        try:
            return await asyncio.wait_for(asyncio.shield(self.running), CHECK_SECONDS)
        except TimeoutError:
            return self.report(UNAVAILABLE, f"the database did not answer within {CHECK_SECONDS} s")

    async def last_runs(self):
        """Each worker's last run, read on the checks' thread; None when the database cannot say in time."""
        loop = asyncio.get_running_loop()
        try:
            reading = asyncio.wrap_future(self.details_executor.submit(self.read_last_runs), loop=loop)
            return await asyncio.wait_for(reading, CHECK_SECONDS)
        except Exception as error:  # details are for people looking: a failure reads as "unknown"
            logger.warning("/healthz/details: no heartbeats (%s: %s)", type(error).__name__, error)
            return None

    async def replica(self):
        """The replica's state as the pages see it (asked at most a second ago); None when there is none."""
        if not replica.configured():
            return None
        loop = asyncio.get_running_loop()
        current = self.details_executor.submit(replica.status.current)
        return (await asyncio.wrap_future(current, loop=loop)).as_json()

    def read_last_runs(self):
        try:
            return {name: run.as_json() for name, run in sorted(heartbeats.last_runs().items())}
        finally:
            connection.close()

    def check(self):
        if not static_files.collected():
            return self.report(NOT_READY, "the static files are not collected: bin/start collects them when it starts")
        try:
            self.select_one()
        except Exception as error:  # any database failure means unhealthy
            self.forget()
            return self.report(UNAVAILABLE, f"the database failed ({type(error).__name__}: {error})")
        return self.report(OK, "")

    def select_one(self):
        if connection.vendor != "postgresql":
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT 1")
            finally:
                # Closed between probes (SQLite has no pool).
                connection.close()
            return
        if self.own is not None:
            try:
                self.own.execute("SELECT 1")
                return
            except psycopg.Error:
                # Closed under it (PostgreSQL restarted): the answer is whether a new connection works.
                self.forget()
        params = {**connection.get_connection_params(), "connect_timeout": CHECK_SECONDS}
        self.own = psycopg.connect(**params, autocommit=True, application_name="historyhub healthz")
        self.own.execute("SELECT 1")

    def forget(self):
        if self.own is not None:
            self.own.close()
            self.own = None

    def report(self, status, reason):
        """``status``, logged when it changes, with the reason that the answer itself leaves out."""
        if status != self.last:
            if status == OK:
                logger.info("/healthz: ok again")
            else:
                logger.warning("/healthz: %s: %s", status, reason)
            self.last = status
        return status


checks = Checks()

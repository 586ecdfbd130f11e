"""``/healthz`` and ``/healthz/details``, answered on the event loop before Django, without the request threads.

- ``/healthz``, for anyone (a container's probe, a load balancer), before host validation and the
  HTTPS redirect: 200 ``{"status": "ok"}`` when the database answers ``SELECT 1`` and the static
  files are collected; 503 ``{"status": "not ready"}`` while the static files' manifest is missing
  (every page would answer 500); 503 ``{"status": "unavailable"}`` when the database fails or does
  not answer within CHECK_SECONDS. It says nothing more: why is logged.
- ``/healthz/details``, only for a request made on this machine (see ``on_this_machine``): the
  worker's pid, the waits and live streams it holds open, and when each worker beside the server
  (the notification worker, the sweep) last ran (``heartbeats``; null when the database does not
  answer). To anyone else it does not exist: the request goes on to Django, which answers 404.

The check runs on one thread of its own, whatever the request threads are doing; probes that come
while it runs share its result, so a flood of probes makes one query at a time.
"""

import asyncio
import ipaddress
import logging
import os
from concurrent.futures import ThreadPoolExecutor

from django.db import connection
from django.http import JsonResponse

from historyhub import live
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
            "workers": await checks.last_runs(),
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
        self.running = None
        self.last = OK

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
            reading = asyncio.wrap_future(self.executor.submit(self.read_last_runs), loop=loop)
            return await asyncio.wait_for(reading, CHECK_SECONDS)
        except Exception as error:  # details are for people looking: a failure reads as "unknown"
            logger.warning("/healthz/details: no heartbeats (%s: %s)", type(error).__name__, error)
            return None

    def read_last_runs(self):
        try:
            return {name: run.as_json() for name, run in sorted(heartbeats.last_runs().items())}
        finally:
            connection.close()

    def check(self):
        if not static_files.collected():
            return self.report(NOT_READY, "the static files are not collected: bin/start collects them when it starts")
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception as error:  # any database failure means unhealthy
            return self.report(UNAVAILABLE, f"the database failed ({type(error).__name__}: {error})")
        finally:
            # Back to the pool (or closed, on SQLite) between probes.
            connection.close()
        return self.report(OK, "")

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

"""The two clients: ``HistoryHubClient`` for scripts, ``AsyncHistoryHubClient`` for coroutines.

Both keep connections alive in pools (httpx), one pool for ordinary calls and
one for long polls, so agents waiting for people never hold the connections
other calls need. The endpoints, and when to try a request again, are
defined once, in ``endpoints.py``; a client only sends and sleeps.
"""

import asyncio
import time
from types import TracebackType
from typing import Any, Self

import httpx2

from historyhub_client.endpoints import Endpoints, Plan
from historyhub_client.transport import LONG_POLL_SECONDS, Pause, Request, RetryPolicy

# Ordinary calls share this many connections; long polls have their own pool, unbounded.
DEFAULT_MAX_CONNECTIONS = 10


class _Base(Endpoints):
    """Construction and the arguments of one try; the subclasses send with httpx's sync or async client.

    ``timeout`` bounds each try (a long poll gets its wait on top), ``retry``
    says how often and how patiently to try again, ``max_connections`` caps
    the pool of ordinary calls, ``long_poll_seconds`` is the longest single
    wait asked of the server (at most 60). ``transport`` replaces httpx's network transport (the server's
    /mcp endpoint passes an ASGI transport, so its tools call the API in the same process).
    """

    # httpx's Client or AsyncClient, set by each subclass, with the pools' types.
    _pool_class: Any = None
    _calls: Any
    _waits: Any

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        long_poll_seconds: float = LONG_POLL_SECONDS,
        transport: httpx2.BaseTransport | httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.long_poll_seconds = min(LONG_POLL_SECONDS, long_poll_seconds)
        options: dict[str, Any] = {
            "base_url": f"{self.base_url}/api/v1/",
            "headers": {"Authorization": f"Bearer {api_key}"},
            "timeout": timeout,
        }
        if transport is not None:
            options["transport"] = transport
        calls = httpx2.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self._calls = self._pool_class(limits=calls, **options)
        # Each waiting agent holds one connection for up to a minute; waits get a pool of their own.
        waits = httpx2.Limits(max_connections=None, max_keepalive_connections=None)
        self._waits = self._pool_class(limits=waits, **options)

    def _send_arguments(self, request: Request) -> tuple[Any, dict[str, Any]]:
        """The pool and httpx's arguments for one try; a long poll gets its wait on top of the usual timeout."""
        timeout: float | httpx2.Timeout = self.timeout
        if request.wait is not None:
            timeout = httpx2.Timeout(self.timeout, read=self.timeout + request.wait)
        pool = self._calls if request.wait is None else self._waits
        return pool, {
            "method": request.method,
            "url": request.path,
            "params": request.params(),
            "content": request.content(),
            "headers": request.headers(),
            "timeout": timeout,
        }


class HistoryHubClient(_Base):
    """Blocking calls, for scripts and threads. Close it (or use ``with``) to close its connections."""

    _pool_class = httpx2.Client
    _calls: httpx2.Client
    _waits: httpx2.Client

    def _run(self, plan: Plan) -> Any:
        reply: tuple[httpx2.Response | None, Exception | None] | None = None
        while True:
            try:
                step = plan.send(reply)
            except StopIteration as done:
                return done.value
            if isinstance(step, Pause):
                time.sleep(step.seconds)
                reply = None
                continue
            pool, arguments = self._send_arguments(step)
            try:
                reply = pool.request(**arguments), None
            except httpx2.TransportError as failure:
                reply = None, failure

    def close(self) -> None:
        self._calls.close()
        self._waits.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


class AsyncHistoryHubClient(_Base):
    """Every method is a coroutine; nothing blocks the event loop. Close it with ``await client.aclose()``."""

    _pool_class = httpx2.AsyncClient
    _calls: httpx2.AsyncClient
    _waits: httpx2.AsyncClient

    async def _run(self, plan: Plan) -> Any:
        reply: tuple[httpx2.Response | None, Exception | None] | None = None
        while True:
            try:
                step = plan.send(reply)
            except StopIteration as done:
                return done.value
            if isinstance(step, Pause):
                await asyncio.sleep(step.seconds)
                reply = None
                continue
            pool, arguments = self._send_arguments(step)
            try:
                reply = await pool.request(**arguments), None
            except httpx2.TransportError as failure:
                reply = None, failure

    async def aclose(self) -> None:
        await self._calls.aclose()
        await self._waits.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.aclose()

"""What both clients share below the endpoints: one request, its answer, and when to try it again.

A request is a plain value (``Request``); the synchronous and the asynchronous
client each send it with their own httpx client and sleep their own way, and
decide the rest here, so the two cannot drift apart (docs/python-client.md).
"""

import email.utils
import json
import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, Self
from urllib.parse import quote

from historyhub_client.errors import HistoryHubError, error_for

# The longest wait the server holds one request for (`wait` is 0-60 s: docs/api.md).
LONG_POLL_SECONDS = 60
# Answers worth another try: the server was briefly unable to answer, or asked us to slow down.
RETRY_STATUSES = {429, 500, 502, 503, 504}
# A repeat that arrived while the first request with its Idempotency-Key was still running.
RETRY_CODES = {"request_in_progress"}


def segment(value: str) -> str:
    """One path segment: every id can be addressed, `/`, `%`, spaces and dot-only ids included."""
    if value in (".", ".."):
        # Percent-encoded, so no URL library takes them for "this" and "parent" segments.
        return value.replace(".", "%2E")
    return quote(value, safe="")


@dataclass(frozen=True)
class Request:
    """One call of the API: method, path under /api/v1, body and query, and whether a retry is safe."""

    method: str
    path: str
    body: object = None
    query: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str | None = None
    # Safe to send again: a read, a write with an Idempotency-Key, or a transaction (operationId).
    retryable: bool = False
    # Seconds the server may hold the request before answering (a long poll).
    wait: float | None = None

    @classmethod
    def read(cls, path: str, **query: Any) -> Self:
        return cls("GET", path, query=query, retryable=True)

    @classmethod
    def write(cls, method: str, path: str, body: object = None) -> Self:
        """A write with a fresh Idempotency-Key: every retry of it is the same request to the server."""
        return cls(method, path, body, idempotency_key=str(uuid.uuid4()), retryable=True)

    @classmethod
    def long_poll(cls, path: str, wait: float) -> Self:
        return cls("GET", path, query={"wait": _seconds(wait)}, retryable=True, wait=wait)

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.body is not None:
            headers["Content-Type"] = "application/json"
        if self.idempotency_key is not None:
            headers["Idempotency-Key"] = self.idempotency_key
        return headers

    def content(self) -> bytes | None:
        if self.body is None:
            return None
        # NaN and Infinity are not JSON: refuse them here rather than send what the server must reject.
        return json.dumps(self.body, ensure_ascii=False, allow_nan=False).encode("utf-8")

    def params(self) -> list[tuple[str, str]]:
        params = []
        for name, value in self.query.items():
            for one in value if isinstance(value, list | tuple) else [value]:
                if one is not None:
                    params.append((name, _query_value(one)))
        return params


def _seconds(value: float) -> str:
    return f"{max(0.0, value):.3f}".rstrip("0").rstrip(".")


def _query_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def decode(status: int, headers: Mapping[str, str], content: bytes) -> Any:
    """The JSON of a successful answer (None when empty); an error answer raises HistoryHubError."""
    try:
        payload = json.loads(content) if content else None
    except ValueError:
        payload = None
    if payload is None and content and status < 400:
        raise HistoryHubError(status, "invalid_answer", "HistoryHub answered with something that is not JSON.")
    if status < 400:
        return payload
    detail = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(detail, dict) and isinstance(detail.get("code"), str):
        raise error_for(status, detail["code"], str(detail.get("message", "")))
    raise HistoryHubError(status, "http_error", f"HistoryHub answered {status}.")


def connection_failed(error: Exception) -> HistoryHubError:
    return HistoryHubError(None, "connection_failed", str(error) or type(error).__name__)


class Response(Protocol):
    """What ``settle`` reads of an HTTP answer (httpx's sync and async responses alike)."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def content(self) -> bytes: ...


@dataclass(frozen=True)
class Pause:
    """Wait this long before the next try."""

    seconds: float


def settle(
    policy: "RetryPolicy", request: Request, attempt: int, response: "Response | None", failure: Exception | None
) -> tuple[bool, Any]:
    """After one try: (True, the answer's JSON), or (False, seconds to wait before the next try).

    ``response`` is the HTTP answer (status_code, headers, content), or
    ``failure`` the connection error that came instead. Raises
    HistoryHubError when the answer is an error not worth another try.
    """
    if failure is not None or response is None:
        error, retry_after = connection_failed(failure or ConnectionError("no answer")), None
    else:
        try:
            return True, decode(response.status_code, response.headers, response.content)
        except HistoryHubError as answered:
            error, retry_after = answered, retry_after_seconds(response.headers.get("Retry-After"))
    delay = policy.delay(request, attempt, error, retry_after)
    if delay is None:
        raise error
    return False, delay


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter, a cap, and the server's Retry-After honoured.

    ``attempts`` counts every try of one request, the first included.
    A Retry-After longer than ``max_delay`` is not waited out: the error is raised.
    """

    attempts: int = 5
    backoff: float = 0.25
    max_delay: float = 30.0

    def delay(
        self, request: Request, attempt: int, error: HistoryHubError, retry_after: float | None = None
    ) -> float | None:
        """Seconds to wait before try ``attempt + 1`` of ``request`` after ``error``, or None to give up."""
        if not request.retryable or attempt + 1 >= self.attempts:
            return None
        if error.status is not None and error.status not in RETRY_STATUSES and error.code not in RETRY_CODES:
            return None
        exponential = min(self.max_delay, self.backoff * 2.0**attempt)
        delay = exponential / 2 + random.uniform(0, exponential / 2)
        if retry_after is not None:
            if retry_after > self.max_delay:
                return None
            delay = max(delay, retry_after)
        return delay


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """The Retry-After header as seconds from now: a number of seconds or an HTTP date; None when absent."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())

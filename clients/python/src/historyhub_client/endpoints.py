"""Every endpoint of the API, defined once for both clients.

Each method describes its calls as a *plan*: a generator that yields a
``Request`` to send (and receives what came back) or a ``Pause`` before
trying again. The synchronous client runs a plan with blocking sends and
sleeps and returns its value; the asynchronous client runs it in a
coroutine, so there every method returns an awaitable. Retries, and calls
that take several requests (a wait longer than the server holds one), are
written once, here.
"""

import itertools
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from historyhub_client.digests import JSONValue
from historyhub_client.transport import Pause, Request, RetryPolicy, segment, settle

# A method's calls: yields each Request to send (and gets back its (response, failure)) or a Pause; returns its value.
Plan = Generator[Request | Pause, Any, Any]

# How long after expiresAt a waiter looks again, so the expiry is already visible.
EXPIRY_MARGIN_SECONDS = 0.25


def _session_path(session_id: str, *rest: str) -> str:
    return "/".join(["sessions", segment(session_id), *rest])


def _fields(**values: Any) -> dict[str, Any]:
    """The body fields given, by their wire names; None means "not sent"."""
    return {name: value for name, value in values.items() if value is not None}


class Endpoints:
    """The API under /api/v1, one method an endpoint (docs/python-client.md lists them).

    A client provides ``_run(plan)``, ``retry`` and ``long_poll_seconds``. Every method answers the
    decoded JSON of the API (``Any``): the synchronous client returns it, the asynchronous one an awaitable
    of it.
    """

    retry: RetryPolicy
    long_poll_seconds: float

    def _run(self, plan: Plan) -> Any:
        """Drive ``plan`` to its answer: each client class overrides this (the synchronous one sends each request
        at once, the asynchronous one awaits it), so ``Endpoints`` alone is never a client."""
        raise NotImplementedError("HistoryHubClient and AsyncHistoryHubClient run plans; Endpoints alone does not")

    def _call(self, request: Request, pick: Callable[[Any], Any] | None = None) -> Any:
        return self._run(self._one(request, pick))

    def _one(self, request: Request, pick: Callable[[Any], Any] | None) -> Plan:
        answer = yield from self._tries(request)
        return answer if pick is None else pick(answer)

    def _tries(self, request: Request) -> Plan:
        """Send ``request``, again after a pause while the retry policy says so; its decoded answer.

        Yields the request (the client answers with ``(response, failure)``)
        and ``Pause`` values (the client sleeps its own way).
        """
        for attempt in itertools.count():
            response, failure = yield request
            answered, value = settle(self.retry, request, attempt, response, failure)
            if answered:
                return value
            yield Pause(value)

    def request(self, method: str, path: str, body: object = None, *, idempotent: bool = True, **query: Any) -> Any:
        """Any endpoint by its path under /api/v1 (segments already percent-encoded).

        A write is sent with an Idempotency-Key unless ``idempotent`` is false;
        only reads and writes sent with a key are retried.
        """
        if method == "GET":
            return self._call(Request.read(path, **query))
        if idempotent:
            return self._call(Request.write(method, path, body))
        return self._call(Request(method, path, body, query))

    # Sessions ---------------------------------------------------------------

    def create_session(
        self,
        agent: str,
        session_id: str | None = None,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        parent_session_id: str | None = None,
        parent_call_id: str | None = None,
    ) -> Any:
        """Create a session, or get the existing one of the same agent: its snapshot."""
        body = _fields(
            agent=agent,
            sessionId=session_id,
            name=name,
            metadata=metadata,
            parentSessionId=parent_session_id,
            parentCallId=parent_call_id,
        )
        return self._call(Request.write("POST", "sessions", body))

    def get_session(self, session_id: str) -> Any:
        return self._call(Request.read(_session_path(session_id)))

    def list_sessions(
        self,
        *,
        agent: str | None = None,
        status: str | None = None,
        run_status: str | None = None,
        q: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Any:
        """A page of sessions: ``{items, page, pageSize, total, hasMore}``, most recently updated first."""
        query = {"agent": agent, "status": status, "runStatus": run_status, "q": q, "page": page, "pageSize": page_size}
        return self._call(Request.read("sessions", **query))

    def update_session(
        self,
        session_id: str,
        *,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        status: str | None = None,
        run_status: str | None = None,
    ) -> Any:
        """Change the fields given; the new snapshot."""
        body = _fields(name=name, metadata=metadata, status=status, runStatus=run_status)
        return self._call(Request.write("PATCH", _session_path(session_id), body))

    def delete_session(self, session_id: str) -> Any:
        return self._call(Request.write("DELETE", _session_path(session_id)))

    def history(self, session_id: str, page: int = 1, page_size: int = 50) -> Any:
        """A page of the timeline (page 1 is the newest), with the session's snapshot fields."""
        return self._call(Request.read(_session_path(session_id, "history"), page=page, pageSize=page_size))

    # The item log -------------------------------------------------------------

    def get_items(self, session_id: str, limit: int | None = None) -> Any:
        """The logical history, chronological; with ``limit``, the newest ``limit`` items."""
        return self._call(Request.read(_session_path(session_id, "items"), limit=limit), _pick("items"))

    def add_items(
        self, session_id: str, items: Iterable[Any], agent: str | None = None, *, skip_existing_ids: bool = False
    ) -> Any:
        """Append items: ``{inserted: [bool, …], itemCount}``. Every item is stored unless ``skip_existing_ids``."""
        body = _fields(items=list(items), agent=agent, skipExistingIds=skip_existing_ids or None)
        return self._call(Request.write("POST", _session_path(session_id, "items"), body))

    def pop_item(self, session_id: str) -> Any:
        """Remove and return the newest item (None when there is none)."""
        return self._call(Request.write("POST", _session_path(session_id, "items", "pop"), {}), _pick("item"))

    def clear_items(self, session_id: str) -> Any:
        """Remove every item, the timeline and the client actions; the session stays."""
        return self._call(Request.write("DELETE", _session_path(session_id, "items")))

    def replace_items(self, session_id: str, items: Iterable[Any]) -> Any:
        return self._call(Request.write("PUT", _session_path(session_id, "items"), {"items": list(items)}))

    def compact(self, session_id: str, items: Iterable[Any]) -> Any:
        """The logical history becomes ``items`` (one of type "compaction", first or last); the rest is archived."""
        return self._call(Request.write("POST", _session_path(session_id, "compaction"), {"items": list(items)}))

    def apply_transaction(self, session_id: str, operation_id: str, transaction: Mapping[str, Any]) -> Any:
        """Apply an ``append_items`` or ``replace_suffix`` transaction once: True when applied by this call.

        Retried by its ``operationId``, which makes a repeat harmless.
        """
        body = {"operationId": operation_id, "transaction": transaction}
        request = Request("POST", _session_path(session_id, "transactions"), body, retryable=True)
        return self._call(request, _pick("applied"))

    def find_response(self, session_id: str, message_id: str) -> Any:
        """``{result: "hit" | "miss" | "kind_mismatch", …}`` for the turn of a user message."""
        return self._call(Request.read(_session_path(session_id, "responses", segment(message_id))))

    def entries(self, session_id: str) -> Any:
        return self._call(Request.read(_session_path(session_id, "entries")), _pick("entries"))

    def add_injection(self, session_id: str, content: Any, injection_id: str | None = None) -> Any:
        body = _fields(id=injection_id, content=content)
        return self._call(Request.write("POST", _session_path(session_id, "injections"), body))

    def get_messages(self, session_id: str) -> Any:
        return self._call(Request.read(_session_path(session_id, "messages")), _pick("messages"))

    def set_messages(self, session_id: str, messages: Sequence[Any]) -> Any:
        return self._call(Request.write("PUT", _session_path(session_id, "messages"), {"messages": messages}))

    # Client actions -------------------------------------------------------------

    def open_client_action(
        self,
        session_id: str,
        call_id: str,
        name: str,
        arguments: JSONValue,
        *,
        description: str | None = None,
        expires_at: str | None = None,
        allowed_responses: Iterable[str] | None = None,
        response_schema: Mapping[str, Any] | None = None,
    ) -> Any:
        """Open a waiting client action (the same call id and content again answers the existing one)."""
        body = _fields(
            callId=call_id,
            name=name,
            arguments=arguments,
            description=description,
            expiresAt=expires_at,
            allowedResponses=None if allowed_responses is None else list(allowed_responses),
            responseSchema=response_schema,
        )
        return self._call(Request.write("POST", _session_path(session_id, "client-actions"), body))

    def list_client_actions(
        self,
        *,
        status: str | None = None,
        agent: str | None = None,
        session_id: str | None = None,
        name: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Any:
        query: dict[str, Any] = {"status": status, "agent": agent, "sessionId": session_id, "name": name}
        query |= {"page": page, "pageSize": page_size}
        return self._call(Request.read("client-actions", **query))

    def get_client_action(self, session_id: str, call_id: str) -> Any:
        return self._call(Request.read(_session_path(session_id, "client-actions", segment(call_id))))

    def wait_for_client_action(self, session_id: str, call_id: str, timeout: float | None = None) -> Any:
        """The action once it is no longer waiting (or its expiresAt has passed), or after ``timeout`` seconds.

        Without a timeout it waits as long as it takes, one long poll of at
        most a minute after another.
        """
        return self._run(self._wait_plan(session_id, call_id, timeout))

    def _wait_plan(self, session_id: str, call_id: str, timeout: float | None) -> Plan:
        path = _session_path(session_id, "client-actions", segment(call_id))
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = self.long_poll_seconds
        while True:
            if deadline is not None:
                wait = min(wait, max(0.0, deadline - time.monotonic()))
            action = yield from self._tries(Request.long_poll(path, wait))
            until_expiry = seconds_until_expiry(action)
            if action["status"] != "waiting" or (until_expiry is not None and until_expiry <= 0):
                return action
            if deadline is not None and time.monotonic() >= deadline:
                return action
            wait = self.long_poll_seconds
            if until_expiry is not None:
                # Look again just after expiresAt, when the action shows expired.
                wait = min(wait, until_expiry + EXPIRY_MARGIN_SECONDS)

    def supply_result(self, session_id: str, call_id: str, output: Any, *, is_error: bool = False) -> Any:
        """The client application's result for an action it ran itself."""
        path = _session_path(session_id, "client-actions", segment(call_id), "result")
        return self._call(Request.write("POST", path, {"output": output, "isError": is_error}))

    def decide(
        self,
        session_id: str,
        call_id: str,
        decision: str,
        *,
        comment: str | None = None,
        arguments: JSONValue = None,
        response: Any = None,
    ) -> Any:
        """Decide a waiting action: approve (with edited ``arguments``, if any), reject, respond with ``response``
        (the person's answer) or dismiss."""
        path = _session_path(session_id, "client-actions", segment(call_id), "decision")
        body = _fields(decision=decision, comment=comment, arguments=arguments, response=response)
        return self._call(Request.write("POST", path, body))

    def claim_execution(self, session_id: str, call_id: str, arguments_digest: str) -> Any:
        """Claim the one execution of an approved action, before running it: ``{executedAt, argumentsDigest}``.

        ``arguments_digest`` is ``arguments_digest(arguments)`` of the arguments about to run. HistoryHub
        answers the first claim only; every other answer is an ``ExecutionRefusedError`` and the tool must not
        run: ``NotApprovedError``, ``ArgumentsMismatchError`` (not the approved arguments) or
        ``AlreadyExecutedError``. A retry after a lost answer carries the same Idempotency-Key, so it
        replays the first answer instead of being refused.
        """
        path = _session_path(session_id, "client-actions", segment(call_id), "execution")
        return self._call(Request.write("POST", path, {"argumentsDigest": arguments_digest}))

    # Parked runs (docs/python-client.md, "Runs that wait for people") -----------

    def park_run(self, session_id: str, run_id: str, *, agent: str, state: str, call_ids: Iterable[str]) -> Any:
        """Keep a run's serialised state until the client actions ``call_ids`` are decided."""
        body = {"agent": agent, "state": state, "callIds": list(call_ids)}
        return self._call(Request.write("PUT", _session_path(session_id, "runs", segment(run_id)), body))

    def get_run(self, session_id: str, run_id: str) -> Any:
        return self._call(Request.read(_session_path(session_id, "runs", segment(run_id))))

    def delete_run(self, session_id: str, run_id: str) -> Any:
        return self._call(Request.write("DELETE", _session_path(session_id, "runs", segment(run_id))))

    def list_runs(
        self,
        *,
        ready: bool | None = None,
        agent: str | None = None,
        session_id: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> Any:
        """A page of parked runs, oldest first; ``ready=True``: every awaited action decided, none claimed."""
        query = {"ready": ready, "agent": agent, "sessionId": session_id, "page": page, "pageSize": page_size}
        return self._call(Request.read("runs", **query))

    def claim_run(self, session_id: str, run_id: str, *, lease_seconds: int | None = None) -> Any:
        """Take a ready run to resume it: the run with its state; 409 ``run_claimed`` when another has it."""
        path = _session_path(session_id, "runs", segment(run_id), "claim")
        return self._call(Request.write("POST", path, _fields(leaseSeconds=lease_seconds)))


def _pick(name: str) -> Callable[[Any], Any]:
    return lambda answer: answer[name]


def seconds_until_expiry(action: Mapping[str, Any], now: datetime | None = None) -> float | None:
    """Seconds until a client action's expiresAt (negative once past); None when it has none."""
    if not action.get("expiresAt"):
        return None
    expires_at = datetime.fromisoformat(action["expiresAt"])
    return (expires_at - (now or datetime.now(UTC))).total_seconds()

"""Human approval for OpenAI Agents SDK tools, decided on HistoryHub (docs/python-client.md).

``run_with_approvals`` runs an agent with a ``HistoryHubSession``. Each tool
call that needs approval becomes a client action a person decides on the
dashboard's Approvals page; the decision goes back into the SDK's run state
(``state.approve`` / ``state.reject``) and the run goes on until it ends. While
it waits, the run state is parked in HistoryHub, so another process can
finish it (``resume_decided_runs``) if this one stops.

Edited arguments: the SDK runs a tool with the arguments the model wrote and
refuses a changed call. A tool made with ``approval_tool`` instead looks up,
by its call id, the arguments the approver approved, and runs with those.

Answers: where a tool allows ``respond`` (``approval_tool(allowed_responses=…)``),
the person's answer is the tool's output and the tool does not run; a
``dismiss`` does not run it either, and the model is told so.

Needs the ``openai-agents`` package; the rest of ``historyhub_client`` does not.
"""

import asyncio
import contextlib
import contextvars
import functools
import inspect
import json
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any, NamedTuple

from agents import Runner, RunState, function_tool
from agents.function_schema import function_schema
from agents.tool_context import ToolContext

from historyhub_client.claims import claim
from historyhub_client.endpoints import seconds_until_expiry
from historyhub_client.errors import HistoryHubError
from historyhub_client.http import AsyncHistoryHubClient
from historyhub_client.session import HistoryHubSession

# Arguments approvers changed, by call id, for the tool calls of the run going on in this context.
_approved_arguments: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar(
    "historyhub_approved_arguments", default=MappingProxyType({})
)
# Marks a FunctionTool made by approval_tool: it runs with an approver's edited arguments.
_TAKES_APPROVED_ARGUMENTS = "_historyhub_takes_approved_arguments"
# What approval_tool says a person may answer about its calls: {"allowed_responses": …, "response_schema": …}.
_RESPONSES = "_historyhub_responses"

REJECTED = "The person reviewing this call rejected it; the tool did not run."
DISMISSED = "The person reviewing this call dismissed the request without answering; the tool did not run."
EXPIRED = "Nobody decided on this call before its approval request expired; the tool did not run."
WITHDRAWN = "The approval request for this call no longer exists; the tool did not run."
CANNOT_EDIT = (
    "The approver changed the arguments to {arguments}, but the tool {name} cannot run with changed arguments, "
    "so it did not run."
)


# Tools -----------------------------------------------------------------------------


def approval_tool(
    func: Callable[..., Any] | None = None,
    *,
    allowed_responses: Iterable[str] | None = None,
    response_schema: Mapping[str, Any] | None = None,
    **options: Any,
) -> Any:
    """``@function_tool(needs_approval=True)``, whose function runs with the arguments the approver approved.

    Use it where you would write ``@function_tool(needs_approval=True)``; it
    takes ``function_tool``'s options. When the approver edits the arguments
    on HistoryHub, the function is called with the edited ones, checked
    against its signature like the model's; otherwise with the model's.

    ``allowed_responses`` (e.g. ``["approve", "reject", "respond", "dismiss"]``;
    HistoryHub's default is approve, edit, reject) and ``response_schema`` (the
    form of a ``respond``'s answer, docs/api.md "Client actions") go with every
    client action this tool's calls open.
    """
    if func is None:
        return functools.partial(
            approval_tool, allowed_responses=allowed_responses, response_schema=response_schema, **options
        )
    schema = function_schema(func)

    def arguments_that_run(ctx: ToolContext[Any], args: Any, kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        approved = _approved_arguments.get().get(ctx.tool_call_id)
        if approved is not None:
            args, kwargs = schema.to_call_args(schema.params_pydantic_model(**approved))
        return ((ctx, *args) if schema.takes_context else tuple(args)), kwargs

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def tool(ctx: ToolContext[Any], *args: Any, **kwargs: Any) -> Any:
            args, kwargs = arguments_that_run(ctx, args, kwargs)
            return await func(*args, **kwargs)

    else:

        @functools.wraps(func)
        def tool(ctx: ToolContext[Any], *args: Any, **kwargs: Any) -> Any:
            args, kwargs = arguments_that_run(ctx, args, kwargs)
            return func(*args, **kwargs)

    if not schema.takes_context:
        # The SDK passes the tool context (with the call id) to a function whose first parameter asks for it.
        parameters = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_ONLY, annotation=ToolContext)]
        signature = inspect.signature(func)
        new_signature = signature.replace(parameters=[*parameters, *signature.parameters.values()])
        tool.__signature__ = new_signature  # type: ignore[attr-defined]
        tool.__annotations__ = {"ctx": ToolContext, **func.__annotations__}
    made = function_tool(tool, **{"needs_approval": True, **options})
    setattr(made, _TAKES_APPROVED_ARGUMENTS, True)
    responses = {"allowed_responses": allowed_responses, "response_schema": response_schema}
    setattr(made, _RESPONSES, {name: value for name, value in responses.items() if value is not None})
    return made


# Running ---------------------------------------------------------------------------


@dataclass
class _Run:
    """One run and how it waits: shared by a first run and every resumption of it."""

    agent: Any
    session: HistoryHubSession
    run_id: str
    expires_in: float | timedelta | None
    wait: float | None
    on_approval_request: Callable[[Any], Awaitable[None] | None] | None
    run_options: dict[str, Any]
    # Whether HistoryHub holds a parked state of this run, to forget when it ends.
    parked: bool = False

    @property
    def client(self) -> AsyncHistoryHubClient:
        return self.session.client


async def run_with_approvals(
    agent: Any,
    input: Any,
    *,
    session: HistoryHubSession,
    run_id: str | None = None,
    expires_in: float | timedelta | None = None,
    wait: float | None = None,
    on_approval_request: Callable[[Any], Awaitable[None] | None] | None = None,
    **run_options: Any,
) -> Any:
    """``Runner.run(agent, input, session=session, …)`` with HistoryHub as the approver; the final RunResult.

    Every tool call awaiting approval opens a client action on the session
    (``callId``, ``name``, parsed ``arguments``, the tool's description;
    ``expiresAt`` ``expires_in`` seconds or timedelta ahead, if given) and the
    run waits for the decisions with long polls: an approval runs the tool
    (with edited arguments for an ``approval_tool``), a rejection sends its
    comment to the model as the tool's answer, an expiry a rejection saying so;
    a person's answer (``respond``) is the tool's output instead of running it,
    and a dismissal tells the model the tool did not run.

    The run state is parked in HistoryHub while people decide. ``wait`` is how
    long this process waits for them, in seconds (None: until they decide);
    after that it returns the interrupted result and the run stays parked for
    ``resume_decided_runs``. ``on_approval_request(action)`` (a function or a
    coroutine function) is called for each opened action, to tell a person.
    The session's runStatus follows the run: running, waiting_for_client_action,
    then completed or failed. Other keyword arguments go to ``Runner.run``.
    """
    run = _Run(
        agent,
        session,
        run_id or f"run_{uuid.uuid4().hex}",
        expires_in=expires_in,
        wait=wait,
        on_approval_request=on_approval_request,
        run_options=run_options,
    )

    async def start() -> Any:
        try:
            # The session may not exist yet; runStatus needs it.
            await session.client.create_session(session.agent or agent.name, session.session_id)
        except HistoryHubError as error:
            if error.code != "session_conflict":
                raise
        await session.client.update_session(session.session_id, run_status="running")
        return await Runner.run(agent, input, session=session, **run_options)

    return await _follow(run, start)


class ResumedRun(NamedTuple):
    session_id: str
    run_id: str
    result: Any
    error: Exception | None


async def resume_decided_runs(
    client: AsyncHistoryHubClient,
    agents: Iterable[Any],
    *,
    expires_in: float | timedelta | None = None,
    wait: float | None = 0,
    on_approval_request: Callable[[Any], Awaitable[None] | None] | None = None,
    lease_seconds: int | None = None,
    **run_options: Any,
) -> list[ResumedRun]:
    """Resume every parked run whose client actions have all been decided; one ResumedRun each.

    ``agents`` are the starting agents, matched to runs by name (the process
    that resumes supplies the code of the tools). Each run is claimed first,
    so of several resumers only one resumes it. A run that asks for new
    approvals is parked again (``wait`` seconds of waiting first, none by
    default). A run that fails is marked failed and forgotten; its error is in
    its ResumedRun and the others go on.
    """
    by_name = {agent.name: agent for agent in agents}
    resumed = []
    for name, agent in by_name.items():
        while True:
            page = await client.list_runs(ready=True, agent=name, page_size=100)
            claimed = [run for run in [await _claim(client, run, lease_seconds) for run in page["items"]] if run]
            if not claimed:
                break
            for parked in claimed:
                run = _Run(
                    agent,
                    HistoryHubSession(parked["sessionId"], client),
                    parked["runId"],
                    expires_in=expires_in,
                    wait=wait,
                    on_approval_request=on_approval_request,
                    run_options=run_options,
                    parked=True,
                )
                try:
                    result = await _follow(run, functools.partial(_resume_parked, run, parked))
                except Exception as error:
                    resumed.append(ResumedRun(run.session.session_id, run.run_id, None, error))
                else:
                    resumed.append(ResumedRun(run.session.session_id, run.run_id, result, None))
    return resumed


async def _claim(client: AsyncHistoryHubClient, parked: Mapping[str, Any], lease_seconds: int | None) -> Any:
    """The run with its state, or None when another resumer took it first or it is no longer ready."""
    try:
        return await client.claim_run(parked["sessionId"], parked["runId"], lease_seconds=lease_seconds)
    except HistoryHubError as error:
        if error.code in ("run_claimed", "run_not_ready", "not_found", "session_not_found"):
            return None
        raise


async def _resume_parked(run: _Run, parked: Mapping[str, Any]) -> Any:
    state = await RunState.from_string(run.agent, parked["state"])
    actions = {}
    for call_id in parked["callIds"]:
        with contextlib.suppress(HistoryHubError):
            actions[call_id] = await run.client.get_client_action(run.session.session_id, call_id)
    return await _resume(run, state, actions)


async def _follow(run: _Run, start: Callable[[], Awaitable[Any]]) -> Any:
    """Start the run, then answer its approvals until it ends or parks; runStatus follows.

    A failure of the run itself (or of parking it) marks it failed. A failure
    while it waits for people leaves it parked, for this process to retry or
    for a resumer to finish.
    """
    result = await _or_fail(run, start)
    while result.interruptions:
        state = result.to_state()
        actions = await _or_fail(run, functools.partial(_park, run, state))
        decided = await _decisions(run, actions)
        if decided is None:
            return result
        result = await _or_fail(run, functools.partial(_resume, run, state, decided))
    await _forget(run)
    await run.client.update_session(run.session.session_id, run_status="completed")
    return result


async def _or_fail(run: _Run, step: Callable[[], Awaitable[Any]]) -> Any:
    try:
        return await step()
    except Exception:
        with contextlib.suppress(HistoryHubError):
            # Already failing: the run's own error is the one to raise.
            await _forget(run)
            await run.client.update_session(run.session.session_id, run_status="failed")
        raise


async def _forget(run: _Run) -> None:
    """Delete the run's parked state once it ended: left behind, a resumer would run its tools again."""
    if not run.parked:
        return
    try:
        await run.client.delete_run(run.session.session_id, run.run_id)
    except HistoryHubError as error:
        if error.code != "not_found":
            raise
    run.parked = False


async def _park(run: _Run, state: Any) -> list[Any]:
    """Open a client action for each pending approval and park the run until they are decided; the actions."""
    client, session_id = run.client, run.session.session_id
    expires_at = _expires_at(run.expires_in)
    actions = []
    for item in state.get_interruptions():
        actions.append(
            await client.open_client_action(
                session_id,
                _call_id(item),
                item.name,
                _arguments(item.raw_item),
                description=_tool_description(item),
                expires_at=expires_at,
                **getattr(_tool(item), _RESPONSES, {}),
            )
        )
    call_ids = [action["callId"] for action in actions]
    await client.park_run(session_id, run.run_id, agent=run.agent.name, state=state.to_string(), call_ids=call_ids)
    run.parked = True
    return actions


async def _decisions(run: _Run, actions: list[Any]) -> dict[str, Any] | None:
    """Tell people, wait for their decisions, and claim the run: the decided actions by call id.

    None when ``run.wait`` ran out first, or another process resumes the run: it stays parked.
    """
    client, session_id = run.client, run.session.session_id
    if run.on_approval_request is not None:
        for action in actions:
            announced = run.on_approval_request(action)
            if inspect.isawaitable(announced):
                await announced
    waits = [client.wait_for_client_action(session_id, action["callId"], timeout=run.wait) for action in actions]
    decided = await asyncio.gather(*waits)
    if any(_undecided(action) for action in decided):
        return None
    try:
        # A resumer in another process may have seen the decisions too: the server gives the run to one of us.
        await client.claim_run(session_id, run.run_id)
    except HistoryHubError as error:
        if error.code in ("run_claimed", "run_not_ready"):
            # Another process goes on with it, or the server does not see every decision yet: it stays parked.
            return None
        raise
    return {action["callId"]: action for action in decided}


async def _resume(run: _Run, state: Any, actions: Mapping[str, Any]) -> Any:
    """Put the decisions into the run state and run on.

    Each approved call is claimed first, with the arguments it will run with (the approver's edited ones for an
    ``approval_tool``, else the model's): a call HistoryHub refuses (other arguments than the approved ones, or
    run already, by this run resumed twice or by a racing resumer) is rejected instead, and the model reads why.
    """
    edited = {}
    for item in state.get_interruptions():
        call_id = _call_id(item)
        approved, detail = _verdict(item, actions.get(call_id))
        if approved:
            arguments = _arguments(item.raw_item) if detail is None else detail
            refused = await claim(run.client, run.session.session_id, call_id, arguments)
            if refused is not None:
                approved, detail = False, refused.message
        if approved:
            state.approve(item)
            if detail is not None:
                edited[call_id] = detail
        else:
            state.reject(item, rejection_message=detail)
    await run.client.update_session(run.session.session_id, run_status="running")
    token = _approved_arguments.set(MappingProxyType({**_approved_arguments.get(), **edited}))
    try:
        return await Runner.run(run.agent, state, session=run.session, **run.run_options)
    finally:
        _approved_arguments.reset(token)


def _verdict(item: Any, action: Mapping[str, Any] | None) -> tuple[bool, Any]:
    """(True, edited arguments or None) to approve, or (False, the message the model gets instead)."""
    if action is None:
        return False, WITHDRAWN
    status = action["status"]
    if status == "approved":
        approved = action.get("approvedArguments")
        if approved is None or approved == action["arguments"]:
            return True, None
        if getattr(_tool(item), _TAKES_APPROVED_ARGUMENTS, False):
            return True, approved
        return False, CANNOT_EDIT.format(arguments=json.dumps(approved, ensure_ascii=False), name=item.name)
    if status == "rejected":
        return False, action.get("comment") or REJECTED
    if status == "answered":
        # The person answered in place of the tool: the answer is what the model reads as its output.
        return False, _as_text(action.get("response"))
    if status == "dismissed":
        return False, DISMISSED
    if status in ("completed", "failed"):
        # A client application ran the action itself: its output stands in for the tool's.
        return False, _as_text(action.get("output"))
    return False, EXPIRED


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _undecided(action: Mapping[str, Any]) -> bool:
    until_expiry = seconds_until_expiry(action)
    return action["status"] == "waiting" and (until_expiry is None or until_expiry > 0)


def _expires_at(expires_in: float | timedelta | None) -> str | None:
    if expires_in is None:
        return None
    if not isinstance(expires_in, timedelta):
        expires_in = timedelta(seconds=expires_in)
    return (datetime.now(UTC) + expires_in).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _field(raw_item: Any, name: str) -> Any:
    return raw_item.get(name) if isinstance(raw_item, Mapping) else getattr(raw_item, name, None)


def _call_id(item: Any) -> str:
    call_id: str = _field(item.raw_item, "call_id") or _field(item.raw_item, "id")
    return call_id


def _arguments(raw_item: Any) -> Any:
    """The call's arguments as an object, the way a person reads them."""
    arguments = _field(raw_item, "arguments")
    if arguments is None:
        arguments = _field(raw_item, "input") or _field(raw_item, "action") or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {"arguments": arguments}
    if hasattr(arguments, "model_dump"):
        arguments = arguments.model_dump(mode="json", exclude_none=True)
    return arguments if isinstance(arguments, dict) else {"arguments": arguments}


def _tool(item: Any) -> Any:
    return next((tool for tool in item.agent.tools if getattr(tool, "name", None) == item.tool_name), None)


def _tool_description(item: Any) -> str:
    return getattr(_tool(item), "description", "") or ""

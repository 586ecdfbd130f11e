"""HistoryHub's MCP tools: an MCP client (Claude Code, any agent) asks a person and waits for the answer.

``historyhub-mcp`` serves them over stdio (``main``, configured by HISTORYHUB_URL, HISTORYHUB_API_KEY and
HISTORYHUB_AGENT); the HistoryHub server serves the same tools at ``/mcp`` over streamable HTTP
(``build_server`` with a client per request). Needs the official ``mcp`` SDK: the extra ``mcp``.
HistoryHub's docs/clients.md, "MCP", describes the tools.

Each tool opens a client action and waits for it with the API's long polls, reporting progress between
them, so a client whose timeout resets on progress waits as long as the person takes. A client that gave
up can ask again with the same ``sessionId`` and ``callId`` (both named in every progress message) and
picks up the same action.

The caller runs the tool once told it may, so ``request_approval`` and ``permission_prompt`` claim the
action's one execution (with the arguments the answer names) before they answer "approved" or "allow": a
call whose arguments are not the approved ones, or that was allowed once already, is refused instead.
"""

import asyncio
import contextlib
import importlib.metadata
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Final

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from historyhub_client import claims
from historyhub_client.digests import DigestError, arguments_digest
from historyhub_client.errors import HistoryHubError
from historyhub_client.http import AsyncHistoryHubClient

DEFAULT_AGENT = "mcp"
# serverInfo.version in the answer to initialize: this package's, which serves the tools at /mcp too.
VERSION = importlib.metadata.version("historyhub-client")
# The SDK logs at INFO by default, and so does httpx: a line on stderr for every request the tools make, which a
# client shows as its server's errors. Warnings and errors still show.
LOG_LEVEL: Final = "WARNING"
# The longest session title a tool call gives its session (docs/clients.md, "MCP").
TITLE_CHARS = 120
# Seconds between two progress notifications: well inside the 60 s after which clients give up.
DEFAULT_PROGRESS_SECONDS = 15.0
# What a person may do with each tool's action (docs/api.md, "Client actions").
APPROVAL_RESPONSES = ("approve", "edit", "reject")
QUESTION_RESPONSES = ("respond", "dismiss")
# Statuses in which a person allowed the action (completed and failed: allowed, then a result came).
APPROVED = ("approved", "completed", "failed")
INSTRUCTIONS = (
    "HistoryHub asks a person before you act. request_approval: may I run this tool with these arguments? "
    "ask_human: a question for a person. Both wait for the answer, however long it takes. Run a tool only "
    'when request_approval answers "approved", with the arguments it answers, and only once.'
)
# A callId asked about again under another tool name: not the call the person decided on.
OTHER_CALL = "This callId belongs to another call ({name}), which the person decided on; this one did not run."

SessionIdField = Annotated[
    str | None,
    Field(description="The HistoryHub session to ask in; without one, the connection's session (created once)."),
]
CallIdField = Annotated[
    str | None,
    Field(description="Ask again with the same callId (and sessionId) to pick up an action already opened."),
]
ExpiresField = Annotated[
    int | None,
    Field(ge=1, le=30 * 24 * 3600, description="Seconds after which the action expires unanswered."),
]


class Outcome(BaseModel):
    """How the person answered (docs/clients.md)."""

    status: str = Field(
        description="approved, rejected, answered, dismissed or expired; refused when a person approved but HistoryHub "
        "refused this execution (see refusal)."
    )
    decision: str | None = Field(description="approve, reject, respond or dismiss; null when expired.")
    arguments: dict[str, Any] | None = Field(
        description="When approved: the arguments to act with (the person's edited ones, if any)."
    )
    comment: str | None = Field(description="What the person wrote with the decision.")
    response: Any = Field(description="The person's answer to ask_human (a string, or an object of its schema).")
    refusal: str | None = Field(
        default=None,
        description="Why the tool must not run although a person approved it: other arguments than the approved ones, "
        "or it was approved for one run and ran (or was allowed) already.",
    )
    sessionId: str
    callId: str


class SessionChoice:
    """The session a tool asks in when none is given: one per connection, or a new one for each call.

    Over stdio a process is one connection, so its actions share one session; the HTTP endpoint is
    stateless (any worker answers any request), so there each call gets a session of its own.
    """

    def __init__(self, agent: str, *, per_call: bool) -> None:
        self.agent = agent
        self.per_call = per_call
        self._session_id: str | None = None
        # Two first calls at once must not make two sessions for one connection.
        self._creating = asyncio.Lock()

    async def session_id(self, hub: AsyncHistoryHubClient, given: str | None, title: str) -> str:
        """The session to ask in; one this makes is titled ``title`` (that of the call that made it)."""
        if given:
            # The agent's own session, whichever agent it belongs to; made for this one when it is new.
            try:
                await hub.get_session(given)
            except HistoryHubError as error:
                if error.code != "session_not_found":
                    raise
                await hub.create_session(self.agent, given, name=title)
            return given
        if self.per_call:
            return await self._create(hub, title)
        async with self._creating:
            if self._session_id is None:
                self._session_id = await self._create(hub, title)
        return self._session_id

    async def _create(self, hub: AsyncHistoryHubClient, title: str) -> str:
        session_id: str = (await hub.create_session(self.agent, name=title))["sessionId"]
        return session_id


def session_title(asked: str, ctx: Context) -> str:
    """A session's title, from the call that makes it: what it asks ("Approval for delete_file"), after the
    client's name when the client gave one at initialize ("claude-code: Approval for delete_file")."""
    line = " ".join(asked.split())
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    client = info.name if info is not None else None
    title = f"{client}: {line}" if client else line
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


def _allowed_arguments(action: Mapping[str, Any]) -> Any:
    """The arguments a person allowed the action with (their edits included), or None: not allowed."""
    if action["status"] not in APPROVED:
        return None
    edited = action.get("approvedArguments")
    return action["arguments"] if edited is None else edited


def to_run(action: Mapping[str, Any], arguments: dict[str, Any]) -> Any:
    """The arguments the caller is told to run an allowed action with: the person's edited ones when the call is
    the one they saw, else the caller's own (which the claim then compares with the approved ones)."""
    edited = action.get("approvedArguments")
    if edited is None or action.get("approvedArgumentsDigest") == action.get("argumentsDigest"):
        return arguments
    try:
        same_call = arguments_digest(arguments) == action.get("argumentsDigest")
    except DigestError:
        same_call = False
    return edited if same_call else arguments


@dataclass(frozen=True)
class Verdict:
    """A decided action, and for an allowed one what the caller may run: ``arguments``, or ``refusal`` (why not)."""

    action: Mapping[str, Any]
    arguments: dict[str, Any] | None = None
    refusal: str | None = None


async def settle(
    hub: AsyncHistoryHubClient, action: Mapping[str, Any], name: str, arguments: dict[str, Any]
) -> Verdict:
    """The Verdict on a decided action: an allowed one is claimed for execution with the arguments the answer
    names, and only a claim HistoryHub grants lets the caller run it."""
    if _allowed_arguments(action) is None:
        return Verdict(action)
    if action["name"] != name:
        return Verdict(action, refusal=OTHER_CALL.format(name=action["name"]))
    running = to_run(action, arguments)
    refused = await claims.claim(hub, action["sessionId"], action["callId"], running)
    return Verdict(action, refusal=refused.message) if refused else Verdict(action, arguments=running)


def outcome(action: Mapping[str, Any], verdict: Verdict | None = None) -> Outcome:
    """The tools' answer; for an approval (``verdict`` given), the arguments to run or why nothing may run."""
    arguments = _allowed_arguments(action) if verdict is None else verdict.arguments
    refusal = None if verdict is None else verdict.refusal
    return Outcome(
        status="refused" if refusal else action["status"],
        decision=action.get("decision"),
        arguments=arguments,
        comment=action.get("comment"),
        response=action.get("response"),
        refusal=refusal,
        sessionId=action["sessionId"],
        callId=action["callId"],
    )


def permission_answer(verdict: Verdict) -> str:
    """The text Claude Code's --permission-prompt-tool reads: allow with the input to run, or deny, why."""
    if verdict.arguments is not None:
        return json.dumps({"behavior": "allow", "updatedInput": verdict.arguments})
    action = verdict.action
    reason = verdict.refusal or action.get("comment")
    reason = reason or f"A person did not allow this ({action['status']} in HistoryHub)."
    return json.dumps({"behavior": "deny", "message": reason})


def _expires_at(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


async def _asked_before(hub: AsyncHistoryHubClient, session_id: str, call_id: str | None) -> Any:
    """The action a client asks about again (it gave up waiting), or None: it is new."""
    if call_id is None:
        return None
    try:
        return await hub.get_client_action(session_id, call_id)
    except HistoryHubError as error:
        if error.status == 404:
            return None
        raise


def build_server(
    client_for: Callable[[Context], AbstractAsyncContextManager[AsyncHistoryHubClient]],
    *,
    agent: str = DEFAULT_AGENT,
    per_call_sessions: bool = False,
    progress_seconds: float | None = None,
) -> MCPServer:
    """The MCP server with HistoryHub's three tools.

    ``client_for(ctx)`` gives an async context manager that yields the AsyncHistoryHubClient a call uses
    (acting with the key, and so in the project, of whoever called).
    """
    progress_seconds = progress_seconds or DEFAULT_PROGRESS_SECONDS
    sessions = SessionChoice(agent, per_call=per_call_sessions)
    server = MCPServer("historyhub", version=VERSION, instructions=INSTRUCTIONS, log_level=LOG_LEVEL)

    async def ask(
        ctx: Context,
        *,
        session_id: str | None,
        call_id: str | None,
        name: str,
        arguments: dict[str, Any],
        asked: str,
        claim: bool = False,
        **fields: Any,
    ) -> Any:
        """Open the action (or find it again by its call id) and wait until it is decided or expires: the action,
        or with ``claim`` (the caller runs the tool when allowed) its Verdict, the execution claimed. ``asked``
        titles a session made for it."""
        async with client_for(ctx) as hub:
            try:
                session_id = await sessions.session_id(hub, session_id, session_title(asked, ctx))
                action = await _asked_before(hub, session_id, call_id)
                if action is None:
                    call_id = call_id or f"mcp_{uuid.uuid4().hex}"
                    action = await hub.open_client_action(session_id, call_id, name, arguments, **fields)
                waited = 0.0
                while action["status"] == "waiting":
                    await ctx.report_progress(
                        waited, None, f"Waiting for a person in HistoryHub (sessionId {session_id}, callId {call_id})."
                    )
                    action = await hub.wait_for_client_action(session_id, action["callId"], timeout=progress_seconds)
                    waited += progress_seconds
                return await settle(hub, action, name, arguments) if claim else action
            except HistoryHubError as error:
                raise ToolError(f"HistoryHub: {error}") from error

    # The tools' argument names are the wire's (docs/api.md), camelCase like the rest of HistoryHub's fields.
    @server.tool(description="Ask a person whether to run a tool with these arguments; wait for the decision.")
    async def request_approval(
        name: Annotated[str, Field(min_length=1, max_length=200, description="The tool or action to run.")],
        arguments: Annotated[dict[str, Any], Field(description="Its arguments, which the person may edit.")],
        ctx: Context,
        description: Annotated[str | None, Field(description="Why, in Markdown, for the person.")] = None,
        sessionId: SessionIdField = None,
        expiresInSeconds: ExpiresField = None,
        callId: CallIdField = None,
    ) -> Outcome:
        verdict = await ask(
            ctx,
            session_id=sessionId,
            call_id=callId,
            name=name,
            arguments=arguments,
            asked=f"Approval for {name}",
            description=description,
            expires_at=_expires_at(expiresInSeconds),
            allowed_responses=APPROVAL_RESPONSES,
            claim=True,
        )
        return outcome(verdict.action, verdict)

    @server.tool(description="Ask a person a question and wait for the answer.")
    async def ask_human(
        question: Annotated[str, Field(min_length=1, description="The question, in Markdown.")],
        ctx: Context,
        responseSchema: Annotated[
            dict[str, Any] | None, Field(description="A JSON Schema object the answer must satisfy.")
        ] = None,
        sessionId: SessionIdField = None,
        expiresInSeconds: ExpiresField = None,
        callId: CallIdField = None,
    ) -> Outcome:
        action = await ask(
            ctx,
            session_id=sessionId,
            call_id=callId,
            name="ask_human",
            arguments={"question": question},
            asked=f"Question: {question}",
            description=question,
            expires_at=_expires_at(expiresInSeconds),
            allowed_responses=QUESTION_RESPONSES,
            response_schema=responseSchema,
        )
        return outcome(action)

    @server.tool(
        description="Claude Code's --permission-prompt-tool: a person allows or denies each tool use.",
        structured_output=False,
    )
    async def permission_prompt(
        tool_name: Annotated[str, Field(min_length=1, max_length=200)],
        input: dict[str, Any],
        tool_use_id: Annotated[str, Field(min_length=1, max_length=200)],
        ctx: Context,
    ) -> str:
        # The tool use's id is the call id: Claude Code asking again picks up the same action.
        verdict = await ask(
            ctx,
            session_id=None,
            call_id=tool_use_id,
            name=tool_name,
            arguments=input,
            asked=f"Permission for {tool_name}",
            allowed_responses=APPROVAL_RESPONSES,
            claim=True,
        )
        return permission_answer(verdict)

    return server


def main() -> None:
    """``historyhub-mcp``: the tools over stdio, for the HistoryHub at HISTORYHUB_URL with HISTORYHUB_API_KEY."""
    url, key = os.environ.get("HISTORYHUB_URL"), os.environ.get("HISTORYHUB_API_KEY")
    if not url or not key:
        sys.exit("historyhub-mcp needs HISTORYHUB_URL and HISTORYHUB_API_KEY in its environment.")
    progress = os.environ.get("HISTORYHUB_MCP_PROGRESS_SECONDS")
    hub = AsyncHistoryHubClient(url, key)

    @contextlib.asynccontextmanager
    async def client_for(ctx: Context) -> AsyncIterator[AsyncHistoryHubClient]:
        # One process is one connection: its calls share one client and its connection pools.
        yield hub

    server = build_server(
        client_for,
        agent=os.environ.get("HISTORYHUB_AGENT") or DEFAULT_AGENT,
        progress_seconds=float(progress) if progress else None,
    )
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        # Ctrl-C is how a person ends the bridge run by hand: an exit, not a crash with a traceback.
        sys.exit(130)

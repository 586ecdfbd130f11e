"""The MCP tools through the official MCP client (the Python SDK's ``Client``): over stdio, the
``historyhub-mcp`` command of the wheel, and over streamable HTTP, the live server's ``/mcp``. A person
decides over the API with the people's key, and the tool returns the decision."""

import asyncio
import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from historyhub_client import HistoryHubError

# The live server reports progress every second (tests/support/server.py), so a test sees several.
WAIT_SECONDS = 20


COMMAND = Path(sys.executable).parent / "historyhub-mcp"
# The client the tests say they are at initialize, as Claude Code says "claude-code".
CLIENT = Implementation(name="claude-code", version="2.1.0")


def stdio_environment(server, key):
    return {
        "PATH": os.environ.get("PATH", ""),
        "HISTORYHUB_URL": server.url,
        "HISTORYHUB_API_KEY": key,
        "HISTORYHUB_AGENT": "claude-code",
        "HISTORYHUB_MCP_PROGRESS_SECONDS": "1",
    }


def stdio(server, key):
    return Client(StdioServerParameters(command=str(COMMAND), env=stdio_environment(server, key)), client_info=CLIENT)


def http(server, key):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return Client(
        streamable_http_client(f"{server.url}/mcp", http_client=httpx2.AsyncClient(headers=headers)), client_info=CLIENT
    )


TRANSPORTS = {"stdio": stdio, "http": http}


ANNOUNCED = re.compile(r"Waiting for a person in HistoryHub \(sessionId (\S+), callId (\S+)\)\.")


async def decided_once_waiting(people, call, progress, decision, *, name, **fields):
    """Wait until the tool has reported progress twice, then decide the action it announced, as a person."""
    async with asyncio.timeout(WAIT_SECONDS):
        while len(progress) < 2:
            assert not call.done(), f"the tool answered before anyone decided: {call.result()}"
            await asyncio.sleep(0.05)
    announced = ANNOUNCED.fullmatch(progress[0][1])
    assert announced, progress[0][1]
    action = await people.get_client_action(*announced.groups())
    assert (action["name"], action["status"]) == (name, "waiting")
    await people.decide(action["sessionId"], action["callId"], decision, **fields)
    return action


async def call_while_a_person_decides(client, connect, tool, tool_arguments, decision, *, name, **fields):
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    async with client, connect(deciding=True) as people:
        call = asyncio.create_task(client.call_tool(tool, tool_arguments, progress_callback=on_progress))
        action = await decided_once_waiting(people, call, progress, decision, name=name, **fields)
        result = await asyncio.wait_for(call, WAIT_SECONDS)
    return result, action, progress


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_request_approval_returns_the_edited_arguments_a_person_approved(transport, server, key, connect):
    async def scenario():
        return await call_while_a_person_decides(
            TRANSPORTS[transport](server, key),
            connect,
            "request_approval",
            {"name": f"refund_{transport}", "arguments": {"amount": 120}, "description": "Refund **120**"},
            "approve",
            name=f"refund_{transport}",
            arguments={"amount": 80},
            comment="80 is the most we refund",
        )

    result, action, progress = asyncio.run(scenario())
    assert result.is_error is False
    assert result.structured_content == {
        "status": "approved",
        "decision": "approve",
        "arguments": {"amount": 80},
        "comment": "80 is the most we refund",
        "response": None,
        "refusal": None,
        "sessionId": action["sessionId"],
        "callId": action["callId"],
    }
    assert action["arguments"] == {"amount": 120}
    assert action["description"] == "Refund **120**"
    # Every progress message names the action, so a client that gave up can ask for it again.
    assert all(action["callId"] in message for _, message in progress)
    assert [value for value, _ in progress] == sorted(value for value, _ in progress)


def test_over_stdio_the_connection_keeps_one_session_of_the_configured_agent(server, key, connect, hub):
    async def scenario():
        outcomes = []
        async with stdio(server, key) as client, connect(deciding=True) as people:
            for number in (1, 2):
                progress = []

                async def on_progress(value, total, message, seen=progress):
                    seen.append((value, message))

                call = asyncio.create_task(
                    client.call_tool(
                        "request_approval", {"name": f"deploy_{number}", "arguments": {}}, progress_callback=on_progress
                    )
                )
                await decided_once_waiting(
                    people, call, progress, "reject", name=f"deploy_{number}", comment="Not today"
                )
                outcomes.append((await asyncio.wait_for(call, WAIT_SECONDS)).structured_content)
        return outcomes

    first, second = asyncio.run(scenario())
    assert first["sessionId"] == second["sessionId"]
    assert (first["status"], first["decision"], first["arguments"], first["comment"]) == (
        "rejected",
        "reject",
        None,
        "Not today",
    )
    session = hub.get_session(first["sessionId"])
    # Titled by the call that made it, after the client's name: not "MCP connection" for every one.
    assert (session["agent"], session["name"]) == ("claude-code", "claude-code: Approval for deploy_1")


def test_over_http_each_call_without_a_session_gets_its_own_in_the_keys_project(server, key, connect, hub):
    async def scenario():
        return await call_while_a_person_decides(
            http(server, key),
            connect,
            "request_approval",
            {"name": "http_own", "arguments": {"a": 1}},
            "approve",
            name="http_own",
        )

    result, action, _ = asyncio.run(scenario())
    assert result.structured_content["arguments"] == {"a": 1}
    session = hub.get_session(action["sessionId"])
    assert (session["agent"], session["name"]) == ("mcp", "claude-code: Approval for http_own")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_permission_prompt_answers_as_claude_code_expects(transport, server, key, connect):
    tool_use = f"toolu_{transport}_allow"

    async def scenario():
        allowed, _, _ = await call_while_a_person_decides(
            TRANSPORTS[transport](server, key),
            connect,
            "permission_prompt",
            {"tool_name": f"Bash_{transport}", "input": {"command": "rm -rf build"}, "tool_use_id": tool_use},
            "approve",
            name=f"Bash_{transport}",
            arguments={"command": "rm -rf build/cache"},
        )
        denied, _, _ = await call_while_a_person_decides(
            TRANSPORTS[transport](server, key),
            connect,
            "permission_prompt",
            {"tool_name": f"Write_{transport}", "input": {"path": "/etc/hosts"}, "tool_use_id": f"{tool_use}_2"},
            "reject",
            name=f"Write_{transport}",
            comment="Never touch /etc",
        )
        return allowed, denied

    allowed, denied = asyncio.run(scenario())
    assert json.loads(allowed.content[0].text) == {
        "behavior": "allow",
        "updatedInput": {"command": "rm -rf build/cache"},
    }
    assert json.loads(denied.content[0].text) == {"behavior": "deny", "message": "Never touch /etc"}


def test_ask_human_opens_a_question_in_the_given_session(server, key, connect, hub):
    hub.create_session("support", "mcp-question-session")

    async def scenario():
        return await call_while_a_person_decides(
            http(server, key),
            connect,
            "ask_human",
            {"question": "Which warehouse ships order 42?", "sessionId": "mcp-question-session"},
            "respond",
            name="ask_human",
            response="Warehouse B, in Lyon",
        )

    result, action, _ = asyncio.run(scenario())
    assert action["sessionId"] == "mcp-question-session"
    assert action["arguments"] == {"question": "Which warehouse ships order 42?"}
    assert result.structured_content["status"] == "answered"
    assert result.structured_content["response"] == "Warehouse B, in Lyon"


def test_asking_again_with_the_same_call_id_picks_up_the_decided_action(server, key, people, hub):
    hub.create_session("support", "mcp-ask-again")
    hub.open_client_action("mcp-ask-again", "call-again", "wire_money", {"to": "ACME"})
    people.decide("mcp-ask-again", "call-again", "approve")

    async def scenario():
        async with http(server, key) as client:
            return await client.call_tool(
                "request_approval",
                {
                    "name": "wire_money",
                    "arguments": {"to": "ACME"},
                    "sessionId": "mcp-ask-again",
                    "callId": "call-again",
                },
            )

    result = asyncio.run(scenario())
    assert result.structured_content["status"] == "approved"
    assert len(hub.list_client_actions(session_id="mcp-ask-again")["items"]) == 1


def test_the_key_that_asked_cannot_decide_through_the_tools(server, key, hub):
    """The agent's own key opens the action: deciding it with that key is refused, as the API refuses it."""
    hub.create_session("support", "mcp-self-decide")

    async def scenario():
        async with http(server, key) as client:
            call = asyncio.create_task(
                client.call_tool(
                    "request_approval",
                    {"name": "self_approve", "arguments": {}, "sessionId": "mcp-self-decide", "callId": "self"},
                )
            )
            async with asyncio.timeout(WAIT_SECONDS):
                while not hub.list_client_actions(session_id="mcp-self-decide")["items"]:
                    await asyncio.sleep(0.05)
            call.cancel()

    asyncio.run(scenario())
    with pytest.raises(HistoryHubError) as refused:
        hub.decide("mcp-self-decide", "self", "approve")
    assert refused.value.status == 403
    assert hub.get_client_action("mcp-self-decide", "self")["status"] == "waiting"


@pytest.mark.parametrize("authorization", [None, "Bearer hh_unknown", "Basic abc"])
def test_mcp_over_http_refuses_a_missing_or_unknown_key(server, authorization):
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if authorization:
        headers["Authorization"] = authorization
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = httpx2.post(f"{server.url}/mcp", json=body, headers=headers)
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "unauthorized"
    assert answer.headers["WWW-Authenticate"] == "Bearer"


def test_the_tools_and_their_schemas_are_listed(server, key):
    async def scenario():
        async with http(server, key) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = asyncio.run(scenario())
    assert set(tools) == {"request_approval", "ask_human", "permission_prompt"}
    assert tools["request_approval"].input_schema["required"] == ["name", "arguments"]
    assert set(tools["ask_human"].input_schema["properties"]) >= {"question", "responseSchema", "sessionId"}
    assert set(tools["permission_prompt"].input_schema["required"]) == {"tool_name", "input", "tool_use_id"}
    assert set(tools["request_approval"].output_schema["properties"]) >= {
        "status",
        "decision",
        "arguments",
        "comment",
        "response",
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_server_names_itself_with_the_packages_version(transport, server, key):
    async def scenario():
        async with TRANSPORTS[transport](server, key) as client:
            return client.server_info

    info = asyncio.run(scenario())
    assert (info.name, info.version) == ("historyhub", importlib.metadata.version("historyhub-client"))


def test_historyhub_mcp_writes_nothing_to_stderr_and_ends_quietly_on_ctrl_c(server, key, people, hub):
    """A client shows its server's stderr as errors: no line per HTTP request there, and no traceback when a person
    ends the bridge with Ctrl-C."""
    hub.create_session("support", "mcp-quiet")
    hub.open_client_action("mcp-quiet", "quiet", "deploy", {})
    people.decide("mcp-quiet", "quiet", "approve")
    bridge = subprocess.Popen(
        [str(COMMAND)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=stdio_environment(server, key),
        text=True,
    )

    def ask(message):
        bridge.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        bridge.stdin.flush()
        return json.loads(bridge.stdout.readline()) if "id" in message else None

    try:
        client = {"name": "tests", "version": "1"}
        ask(
            {
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client},
            }
        )
        ask({"method": "notifications/initialized"})
        arguments = {"name": "deploy", "arguments": {}, "sessionId": "mcp-quiet", "callId": "quiet"}
        called = ask({"id": 2, "method": "tools/call", "params": {"name": "request_approval", "arguments": arguments}})
        bridge.send_signal(signal.SIGINT)
        _, errors = bridge.communicate(timeout=WAIT_SECONDS)
    finally:
        bridge.kill()
    assert called["result"]["structuredContent"]["status"] == "approved"
    assert errors == ""
    assert bridge.returncode == 130

"""The MCP tools claim an approved action's one execution before they answer "approved" or "allow" (the caller
runs the tool then): asked again, or with other arguments than the approved ones, they refuse and say why. The
official MCP SDK's client, over stdio (the wheel's historyhub-mcp) and over HTTP (the live server's /mcp)."""

import asyncio
import json

import pytest

from historyhub_client.claims import MISMATCH
from tests.support.ids import unique
from tests.test_mcp import ANNOUNCED, TRANSPORTS, stdio

REFUND = {"order": 1234, "amount": 25}


def approved_before(hub, people, session_id, call_id):
    hub.create_session("support", session_id)
    hub.open_client_action(session_id, call_id, "issue_refund", REFUND)
    people.decide(session_id, call_id, "approve")


async def ask(client, session_id, call_id, arguments, name="issue_refund"):
    tool_arguments = {"name": name, "arguments": arguments, "sessionId": session_id, "callId": call_id}
    return (await client.call_tool("request_approval", tool_arguments)).structured_content


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_approval_is_answered_once_and_refused_when_asked_again(transport, server, key, hub, people):
    session_id = unique("mcp-once")
    approved_before(hub, people, session_id, "call_once")

    async def scenario():
        async with TRANSPORTS[transport](server, key) as client:
            first = await ask(client, session_id, "call_once", REFUND)
            return first, await ask(client, session_id, "call_once", REFUND)

    first, again = asyncio.run(scenario())
    assert (first["status"], first["arguments"], first["refusal"]) == ("approved", REFUND, None)
    assert hub.get_client_action(session_id, "call_once")["executedAt"] is not None
    assert (again["status"], again["decision"], again["arguments"]) == ("refused", "approve", None)
    assert again["refusal"].startswith("HistoryHub refused to run this call again: it ran already")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_other_arguments_under_an_approved_call_id_are_refused(transport, server, key, hub, people):
    session_id = unique("mcp-other")
    approved_before(hub, people, session_id, "call_other")

    async def scenario():
        async with TRANSPORTS[transport](server, key) as client:
            other = await ask(client, session_id, "call_other", REFUND | {"amount": 2500})
            other_tool = await ask(client, session_id, "call_other", REFUND, name="delete_account")
            unclaimed = hub.get_client_action(session_id, "call_other")
            return other, other_tool, unclaimed, await ask(client, session_id, "call_other", REFUND)

    other, other_tool, unclaimed, approved = asyncio.run(scenario())
    assert (other["status"], other["arguments"], other["refusal"]) == ("refused", None, MISMATCH)
    assert (other_tool["status"], other_tool["arguments"]) == ("refused", None)
    assert "another call (issue_refund)" in other_tool["refusal"]
    # Refusals claim nothing: the call that was approved may still run, once.
    assert unclaimed["executedAt"] is None
    assert (approved["status"], approved["arguments"]) == ("approved", REFUND)


def test_permission_prompt_allows_a_tool_use_once(server, key, connect):
    tool_use = unique("toolu")

    async def scenario():
        async with stdio(server, key) as client, connect(deciding=True) as people:
            progress = []

            async def on_progress(value, total, message):
                progress.append((value, message))

            prompt = {"tool_name": "Bash", "input": {"command": "make deploy"}, "tool_use_id": tool_use}
            call = asyncio.create_task(client.call_tool("permission_prompt", prompt, progress_callback=on_progress))
            while len(progress) < 1:
                await asyncio.sleep(0.05)
            # The progress message names the session and the call (the tool use's id).
            session_id, call_id = ANNOUNCED.fullmatch(progress[0][1]).groups()
            assert call_id == tool_use
            await people.decide(session_id, call_id, "approve")
            allowed = await asyncio.wait_for(call, 20)
            again = await client.call_tool("permission_prompt", prompt)
            return allowed, again

    allowed, again = asyncio.run(scenario())
    assert json.loads(allowed.content[0].text) == {"behavior": "allow", "updatedInput": {"command": "make deploy"}}
    denied = json.loads(again.content[0].text)
    assert denied["behavior"] == "deny"
    assert denied["message"].startswith("HistoryHub refused to run this call again: it ran already")

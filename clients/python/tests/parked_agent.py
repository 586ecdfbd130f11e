"""An agent process for the resume tests: ``PARKED_AGENT=NAME python -m tests.parked_agent URL KEY SESSION_ID``.

It asks for approval of a refund, prints the client action it opened as one
JSON line, and waits for the decision; the test ends the process there. The
resuming process imports ``agent`` from here (its tools and model), as a
deployment's resumer imports its own agents. Both get the agent's name from
``PARKED_AGENT``: resumers pick runs up by name, and each test's is its own.
"""

import asyncio
import json
import os
import sys

from agents import Agent, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from historyhub_client import AsyncHistoryHubClient, HistoryHubSession
from historyhub_client.approvals import approval_tool, run_with_approvals

set_tracing_disabled(True)


@approval_tool
def issue_refund(order: int, amount: float) -> str:
    """Refund part of an order to the customer's card."""
    return f"Refunded {amount} on order {order}."


def respond(call):
    """The offline model: ask for the refund, then report what the tool answered."""
    outputs = [item["output"] for item in call.input if item.get("type") == "function_call_output"]
    if outputs:
        return [assistant_message(f"Done: {outputs[-1]}", item_id=f"msg_{len(call.input)}")]
    return [function_call("issue_refund", {"order": 1234, "amount": 25}, call_id="call_refund")]


agent = Agent(
    name=os.environ["PARKED_AGENT"],
    model=ScriptedModel([ModelStep.respond(respond) for _ in range(10)]),
    tools=[issue_refund],
)


async def main(url, key, session_id):
    def announce(action):
        print(json.dumps(action), flush=True)

    async with AsyncHistoryHubClient(url, key) as client:
        session = HistoryHubSession(session_id, client, agent=agent.name)
        await run_with_approvals(agent, "Refund 25 on order 1234", session=session, on_approval_request=announce)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))

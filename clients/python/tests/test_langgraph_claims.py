"""The LangGraph bridge claims each approved call before it resumes the graph with it: the real LangChain agent
(``create_agent`` with ``HumanInTheLoopMiddleware``), an offline model, the live server. An approved refund runs
once; resumed twice, or by two resumers at once, it still runs once (the resumer refused the claim leaves the
thread alone); a call whose arguments are not the approved ones is resumed as a rejection."""

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Interrupt

from historyhub_client import arguments_digest
from historyhub_client.claims import MISMATCH
from historyhub_client.langgraph import call_id, decisions, run_with_reviews
from tests.langgraph_agent import REFUND, refund_agent
from tests.support.ids import unique

PACKAGE = Path(__file__).resolve().parents[1]
REQUEST = {"messages": [{"role": "user", "content": "Refund 25 on order 1234"}]}


def counting_refunds():
    """An issue_refund tool that records each time it really runs."""
    runs = []

    @tool
    def issue_refund(order: int, amount: int) -> str:
        """Refund part of an order to the customer's card."""
        runs.append((order, amount))
        return f"Refunded {amount} on order {order}."

    return issue_refund, runs


def tool_messages(values):
    return [message.content for message in values["messages"] if message.type == "tool"]


def test_an_approved_call_is_claimed_before_it_runs_and_runs_once(connect):
    session_id, config = unique("lg-claimed"), {"configurable": {"thread_id": unique("thread")}}
    refund_tool, runs = counting_refunds()
    graph = refund_agent(InMemorySaver(), refund_tool)

    async def coroutine():
        async with connect() as hub, connect(deciding=True) as people:
            stopped = await run_with_reviews(graph, REQUEST, hub=hub, session_id=session_id, config=config, timeout=0)
            [action] = stopped.waiting
            await people.decide(session_id, action["callId"], "approve", arguments={"order": 1234, "amount": 20})
            finished = await run_with_reviews(graph, None, hub=hub, session_id=session_id, config=config)
            return finished, await hub.get_client_action(session_id, action["callId"])

    finished, action = asyncio.run(coroutine())
    assert runs == [(1234, 20)]
    [told] = tool_messages(finished.values)
    assert told.endswith("Refunded 20 on order 1234.")
    assert action["executedAt"] is not None


def test_two_resumers_at_once_run_the_approved_call_once(connect):
    session_id, config = unique("lg-race"), {"configurable": {"thread_id": unique("thread")}}
    refund_tool, runs = counting_refunds()
    graph = refund_agent(InMemorySaver(), refund_tool)

    async def coroutine():
        async with connect() as first, connect() as second, connect(deciding=True) as people:
            stopped = await run_with_reviews(graph, REQUEST, hub=first, session_id=session_id, config=config, timeout=0)
            [action] = stopped.waiting
            await people.decide(session_id, action["callId"], "approve")
            resumed = await asyncio.gather(
                run_with_reviews(graph, None, hub=first, session_id=session_id, config=config),
                run_with_reviews(graph, None, hub=second, session_id=session_id, config=config),
            )
            return action["callId"], *resumed

    claimed, one, other = asyncio.run(coroutine())
    assert runs == [(1234, 25)]
    # The resumer that lost the claim left the thread to the other: resuming it too could run the tool again.
    [winner] = [run for run in (one, other) if not run.executed_elsewhere]
    [loser] = [run for run in (one, other) if run.executed_elsewhere]
    assert [message.endswith("Refunded 25 on order 1234.") for message in tool_messages(winner.values)] == [True]
    assert loser.executed_elsewhere == [claimed]


def test_a_thread_resumed_twice_from_copies_of_its_checkpoints_runs_the_call_once(server, key, people, tmp_path):
    session_id, thread_id = unique("lg-twice"), unique("thread")
    database, copy = tmp_path / "checkpoints.sqlite", tmp_path / "copy.sqlite"

    def agent_process(step, checkpoints):
        arguments = [server.url, key, session_id, thread_id, str(checkpoints), step]
        done = subprocess.run(
            [sys.executable, "-m", "tests.langgraph_agent", *arguments],
            cwd=PACKAGE,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    (waiting,) = agent_process("start", database)["waiting"]
    # A second resumer holds a copy of the thread as it was while the refund waited.
    shutil.copy(database, copy)
    people.decide(session_id, waiting, "approve")
    assert "Refunded 25 on order 1234." in agent_process("resume", database)["last"]
    # The copy's resumer is refused the claim: it leaves its copy of the thread as it was, and nothing runs.
    again = agent_process("resume", copy)
    assert again["elsewhere"] == [waiting]
    assert "Refunded" not in again["last"]


def test_an_approval_of_other_arguments_resumes_as_a_rejection_naming_why(connect):
    """An interrupt whose call asks for other arguments than the approved action under its call id."""
    session_id = unique("lg-mismatch")
    interrupt = Interrupt(
        value={
            "action_requests": [{"name": "issue_refund", "args": REFUND | {"amount": 2500}}],
            "review_configs": [{"action_name": "issue_refund", "allowed_decisions": ["approve", "reject"]}],
        },
        id=unique("interrupt"),
    )

    async def coroutine():
        async with connect() as hub, connect(deciding=True) as people:
            await hub.create_session("langgraph", session_id)
            await hub.open_client_action(session_id, call_id(interrupt.id, 0), "issue_refund", REFUND)
            action = await people.decide(session_id, call_id(interrupt.id, 0), "approve")
            decided = await decisions(hub, session_id, interrupt, [action])
            return decided, await hub.get_client_action(session_id, action["callId"])

    decided, action = asyncio.run(coroutine())
    assert decided == [{"type": "reject", "message": MISMATCH}]
    assert action["executedAt"] is None
    assert action["approvedArgumentsDigest"] == arguments_digest(REFUND)

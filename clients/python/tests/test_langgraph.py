"""HumanInTheLoopMiddleware's interrupts through HistoryHub: the real LangChain agent, an offline model, a
person deciding over the API with the people's key, and the graph resumed with the decisions, in this
process and in a new one (a SQLite checkpointer holds the thread).

The decisions are approve, edit and reject: ``respond`` and ``dismiss`` (and ``allowedResponses``) are the
server's to accept, and the bridge maps them too (historyhub_client.langgraph.decision_for)."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from historyhub_client.langgraph import decision_for, run_with_reviews
from tests.langgraph_agent import REFUND, refund_agent
from tests.support.ids import unique

PACKAGE = Path(__file__).resolve().parents[1]
WAIT_SECONDS = 20


async def reviewed(connect, session_id, decision, **fields):
    """Run the agent; once its refund waits in HistoryHub, a person decides it; the finished run."""
    config = {"configurable": {"thread_id": unique("thread")}}
    request = {"messages": [{"role": "user", "content": "Refund 25 on order 1234"}]}
    async with connect() as hub, connect(deciding=True) as people:
        run = asyncio.create_task(
            run_with_reviews(refund_agent(InMemorySaver()), request, hub=hub, session_id=session_id, config=config)
        )
        async with asyncio.timeout(WAIT_SECONDS):
            while not (waiting := (await people.list_client_actions(status="waiting", session_id=session_id))["items"]):
                assert not run.done(), f"the run ended before anyone decided: {run.result()}"
                await asyncio.sleep(0.05)
        (action,) = waiting
        await people.decide(session_id, action["callId"], decision, **fields)
        return action, await asyncio.wait_for(run, WAIT_SECONDS)


def tool_messages(run):
    return [(message.content, message.status) for message in run.values["messages"] if message.type == "tool"]


def test_an_approved_refund_runs_with_the_arguments_the_model_asked_for(connect, hub):
    session_id = unique("lg-approve")
    action, run = asyncio.run(reviewed(connect, session_id, "approve"))
    assert (action["name"], action["arguments"]) == ("issue_refund", REFUND)
    assert "Tool: issue_refund" in action["description"]
    assert run.waiting == []
    assert tool_messages(run) == [("Refunded 25 on order 1234.", "success")]
    assert run.values["messages"][-1].content == "Done: Refunded 25 on order 1234."
    # The conversation is in the session, each message once, in chat format.
    items = hub.get_items(session_id)
    assert [item["role"] for item in items] == ["user", "assistant", "tool", "assistant"]
    assert items[1]["tool_calls"][0]["function"]["name"] == "issue_refund"
    # The approval is on the model's tool call, under its id: the timeline shows it on the call, by the tool's name.
    assert action["callId"] == items[1]["tool_calls"][0]["id"] == "call_refund"


def test_an_edited_refund_runs_with_the_persons_arguments(connect):
    _, run = asyncio.run(reviewed(connect, unique("lg-edit"), "approve", arguments={"order": 1234, "amount": 10}))
    ((content, status),) = tool_messages(run)
    assert "Refunded 10 on order 1234." in content
    assert status == "success"
    assert run.values["messages"][-1].content.startswith("Done:")


def test_a_rejected_refund_does_not_run_and_the_model_reads_the_comment(connect):
    _, run = asyncio.run(reviewed(connect, unique("lg-reject"), "reject", comment="Refunds over 20 need a manager"))
    ((content, status),) = tool_messages(run)
    assert content == "User rejected the tool call for `issue_refund` with reason: Refunds over 20 need a manager"
    assert status == "error"
    assert "Refunded" not in run.values["messages"][-1].content


def test_a_run_left_waiting_is_finished_by_a_new_process_after_the_decision(server, key, people, tmp_path):
    session_id, thread_id, database = unique("lg-resume"), unique("thread"), str(tmp_path / "checkpoints.sqlite")

    def agent_process(step):
        done = subprocess.run(
            [sys.executable, "-m", "tests.langgraph_agent", server.url, key, session_id, thread_id, database, step],
            cwd=PACKAGE,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    started = agent_process("start")
    (call_id,) = started["waiting"]
    assert people.get_client_action(session_id, call_id)["status"] == "waiting"
    people.decide(session_id, call_id, "approve", arguments={"order": 1234, "amount": 20})
    finished = agent_process("resume")
    assert finished == {"waiting": [], "last": finished["last"]}
    assert "Refunded 20 on order 1234." in finished["last"]
    # Asked again, the thread has nothing left to review: the refund ran once.
    assert agent_process("resume") == finished


def test_each_outcome_becomes_the_middlewares_decision():
    base = {"name": "issue_refund", "arguments": {"amount": 25}, "approvedArguments": None, "comment": None}
    assert decision_for({**base, "status": "approved", "approvedArguments": {"amount": 25}}) == {"type": "approve"}
    assert decision_for({**base, "status": "approved", "approvedArguments": {"amount": 5}}) == {
        "type": "edit",
        "edited_action": {"name": "issue_refund", "args": {"amount": 5}},
    }
    assert decision_for({**base, "status": "rejected"}) == {"type": "reject"}
    assert decision_for({**base, "status": "answered", "response": "Ship it Monday"}) == {
        "type": "respond",
        "message": "Ship it Monday",
    }
    assert decision_for({**base, "status": "answered", "response": {"day": "Monday"}}) == {
        "type": "respond",
        "message": '{"day": "Monday"}',
    }
    assert decision_for({**base, "status": "dismissed"})["type"] == "reject"
    assert decision_for({**base, "status": "expired"})["type"] == "reject"

"""run_with_approvals: people approve an Agents SDK agent's tools on HistoryHub; the real SDK, its offline model."""

import asyncio
import json
from asyncio import run

import pytest
from agents import Agent, function_tool
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from historyhub_client import HistoryHubSession
from historyhub_client.approvals import DISMISSED, EXPIRED, approval_tool, resume_decided_runs, run_with_approvals
from tests.support.ids import unique

REFUND = {"order": 1234, "amount": 25}


class Shop:
    """An agent with one tool that needs approval, and a record of what the tool really did."""

    def __init__(self, *steps, editable=True, **responses):
        self.refunds = []

        def issue_refund(order: int, amount: float) -> str:
            """Refund part of an order to the customer's card."""
            self.refunds.append((order, amount))
            return f"Refunded {amount} on order {order}."

        if editable:
            tool = approval_tool(issue_refund, **responses)
        else:
            tool = function_tool(issue_refund, needs_approval=True)
        self.model = ScriptedModel(
            steps
            or [
                [function_call("issue_refund", REFUND, call_id="call_refund")],
                [assistant_message("All done.", item_id="msg_done")],
            ]
        )
        # A name of its own: resumers pick runs up by their agent's name, in a database every test shares.
        self.agent = Agent(name=unique("support"), instructions="Help with refunds.", model=self.model, tools=[tool])

    def tool_output(self, call_id="call_refund"):
        """What the model was told the tool answered."""
        outputs = [item for item in self.model.calls[-1].input if item.get("type") == "function_call_output"]
        return next(item["output"] for item in outputs if item["call_id"] == call_id)


def cards(history, call_id):
    """The timeline items of one call: a gated call shows as one card."""
    return [item for item in history["items"] if item.get("callId") == call_id]


def person(client, session_id, decision, seen, **details):
    """An approver who looks at the session, then decides over HTTP, as on the Approvals page."""

    async def decide(action):
        seen.append(
            {
                "action": action,
                "snapshot": await client.get_session(session_id),
                "history": await client.history(session_id),
                "runs": await client.list_runs(session_id=session_id),
            }
        )
        await client.decide(session_id, action["callId"], decision, **details)

    return decide


def test_an_approved_call_runs_and_the_run_completes(connect):
    session_id = unique("approve")
    shop, seen = Shop(), []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            session = HistoryHubSession(session_id, client, agent="support")
            result = await run_with_approvals(
                shop.agent,
                "Refund 25 on order 1234",
                session=session,
                on_approval_request=person(people, session_id, "approve", seen, comment="Fine."),
            )
            return (
                result,
                await client.get_session(session_id),
                await client.history(session_id),
                await session.get_items(),
            )

    result, snapshot, history, items = run(coroutine())
    assert result.final_output == "All done."
    assert shop.refunds == [(1234, 25.0)]
    [asked] = seen
    assert {field: asked["action"][field] for field in ("callId", "name", "arguments", "description", "status")} == {
        "callId": "call_refund",
        "name": "issue_refund",
        "arguments": REFUND,
        "description": "Refund part of an order to the customer's card.",
        "status": "waiting",
    }
    # While the person decides: the run waits, its state parked in HistoryHub, the call shown once, waiting.
    assert asked["snapshot"]["runStatus"] == "waiting_for_client_action"
    assert asked["snapshot"]["pendingClientActions"] == [
        {"callId": "call_refund", "name": "issue_refund", "arguments": REFUND}
    ]
    assert [(run["runId"].startswith("run_"), run["callIds"], run["ready"]) for run in asked["runs"]["items"]] == [
        (True, ["call_refund"], False)
    ]
    assert [card["status"] for card in cards(asked["history"], "call_refund")] == ["waiting"]
    # Afterwards: completed, the call shown once, completed, with the approver's comment; the parked state is gone.
    assert snapshot["runStatus"] == "completed"
    [card] = cards(history, "call_refund")
    assert (card["type"], card["status"], card["output"]) == ("action", "completed", "Refunded 25.0 on order 1234.")
    assert (card["approval"]["status"], card["approval"]["comment"]) == ("approved", "Fine.")
    assert [item.get("type", "message") for item in items] == [
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert items[2]["output"] == "Refunded 25.0 on order 1234."


def test_a_rejected_call_does_not_run_and_the_model_reads_the_comment(connect):
    session_id = unique("reject")
    shop, seen = Shop(), []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            result = await run_with_approvals(
                shop.agent,
                "Refund 25 on order 1234",
                session=HistoryHubSession(session_id, client),
                on_approval_request=person(people, session_id, "reject", seen, comment="Over the limit; offer 10."),
            )
            return result, await client.get_session(session_id), await client.history(session_id)

    result, snapshot, history = run(coroutine())
    assert result.final_output == "All done."
    assert shop.refunds == []
    assert shop.tool_output() == "Over the limit; offer 10."
    assert snapshot["runStatus"] == "completed"
    [card] = cards(history, "call_refund")
    assert card["status"] == "failed"
    assert (card["approval"]["status"], card["approval"]["comment"]) == ("rejected", "Over the limit; offer 10.")


def test_edited_arguments_are_the_ones_the_tool_runs_with(connect):
    session_id = unique("edit")
    shop, seen = Shop(), []
    edited = {"order": 1234, "amount": 20}

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            await run_with_approvals(
                shop.agent,
                "Refund 25 on order 1234",
                session=HistoryHubSession(session_id, client),
                on_approval_request=person(people, session_id, "approve", seen, arguments=edited),
            )
            return await client.history(session_id), await client.get_client_action(session_id, "call_refund")

    history, action = run(coroutine())
    assert shop.refunds == [(1234, 20.0)]
    assert shop.tool_output() == "Refunded 20.0 on order 1234."
    assert (action["arguments"], action["approvedArguments"]) == (REFUND, edited)
    # The timeline shows the arguments asked for, those approved, and the outcome of running with them.
    [card] = cards(history, "call_refund")
    assert (card["status"], card["arguments"], card["approval"]["approvedArguments"]) == ("completed", REFUND, edited)
    assert card["output"] == "Refunded 20.0 on order 1234."


def test_edited_arguments_never_reach_a_tool_that_cannot_take_them(connect):
    session_id = unique("edit-refused")
    shop, seen = Shop(editable=False), []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            await run_with_approvals(
                shop.agent,
                "Refund 25 on order 1234",
                session=HistoryHubSession(session_id, client),
                on_approval_request=person(people, session_id, "approve", seen, arguments={"order": 1, "amount": 1}),
            )

    run(coroutine())
    assert shop.refunds == []
    assert "cannot run with changed arguments" in shop.tool_output()
    assert '{"order": 1, "amount": 1}' in shop.tool_output()


def test_a_call_nobody_decides_in_time_expires_as_a_rejection(connect):
    session_id = unique("expire")
    shop = Shop()

    async def coroutine():
        async with connect() as client:
            result = await run_with_approvals(
                shop.agent, "Refund 25 on order 1234", session=HistoryHubSession(session_id, client), expires_in=1
            )
            return result, await client.get_client_action(session_id, "call_refund"), await client.history(session_id)

    result, action, history = run(coroutine())
    assert result.final_output == "All done."
    assert shop.refunds == []
    assert action["status"] == "expired"
    assert shop.tool_output() == EXPIRED
    assert history["runStatus"] == "completed"
    [card] = cards(history, "call_refund")
    assert (card["status"], card["approval"]["status"]) == ("failed", "expired")


def test_two_gated_calls_in_one_turn_are_decided_one_by_one(connect):
    session_id = unique("two-calls")
    shop = Shop(
        [
            function_call("issue_refund", {"order": 1, "amount": 5}, call_id="call_a"),
            function_call("issue_refund", {"order": 2, "amount": 500}, call_id="call_b"),
        ],
        [assistant_message("One refund made, one refused.", item_id="msg_done")],
    )
    decisions = {"call_a": ("approve", {}), "call_b": ("reject", {"comment": "Too much."})}
    asked = []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:

            async def decide(action):
                asked.append(action["callId"])
                decision, details = decisions[action["callId"]]
                await people.decide(session_id, action["callId"], decision, **details)

            result = await run_with_approvals(
                shop.agent, "Refund both", session=HistoryHubSession(session_id, client), on_approval_request=decide
            )
            return result, await client.history(session_id)

    result, history = run(coroutine())
    assert asked == ["call_a", "call_b"]
    assert shop.refunds == [(1, 5.0)]
    assert shop.tool_output("call_a") == "Refunded 5.0 on order 1."
    assert shop.tool_output("call_b") == "Too much."
    assert result.final_output == "One refund made, one refused."
    assert [card["status"] for card in cards(history, "call_a") + cards(history, "call_b")] == ["completed", "failed"]


def test_a_run_that_fails_after_its_approval_is_marked_failed(connect):
    session_id = unique("fails")
    shop = Shop(
        [function_call("issue_refund", REFUND, call_id="call_refund")],
        ModelStep.raise_error(RuntimeError("the model is down")),
    )
    seen = []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            with pytest.raises(RuntimeError, match="the model is down"):
                await run_with_approvals(
                    shop.agent,
                    "Refund 25 on order 1234",
                    session=HistoryHubSession(session_id, client),
                    on_approval_request=person(people, session_id, "approve", seen),
                )
            return await client.get_session(session_id), await client.list_runs(session_id=session_id)

    snapshot, runs = run(coroutine())
    assert shop.refunds == [(1234, 25.0)]
    assert snapshot["runStatus"] == "failed"
    assert runs["items"] == []


def test_a_run_left_waiting_is_parked_and_resumed_once_the_person_decides(connect):
    session_id = unique("parked")
    shop = Shop()

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            session = HistoryHubSession(session_id, client)
            interrupted = await run_with_approvals(shop.agent, "Refund 25 on order 1234", session=session, wait=0)
            parked = await client.list_runs(session_id=session_id)
            nothing_yet = await resume_decided_runs(client, [shop.agent])
            await people.decide(session_id, "call_refund", "approve")
            ready = await client.list_runs(ready=True, session_id=session_id)
            resumed = await resume_decided_runs(client, [shop.agent])
            return interrupted, parked, nothing_yet, ready, resumed, await client.get_session(session_id)

    interrupted, parked, nothing_yet, ready, resumed, snapshot = run(coroutine())
    assert [item.name for item in interrupted.interruptions] == ["issue_refund"]
    assert [(run["callIds"], run["ready"], run["agent"]) for run in parked["items"]] == [
        (["call_refund"], False, shop.agent.name)
    ]
    assert nothing_yet == []
    assert [run["runId"] for run in ready["items"]] == [parked["items"][0]["runId"]]
    [(resumed_session, run_id, result, error)] = resumed
    assert (resumed_session, run_id, error) == (session_id, parked["items"][0]["runId"], None)
    assert result.final_output == "All done."
    assert shop.refunds == [(1234, 25.0)]
    assert snapshot["runStatus"] == "completed"


def test_two_resumers_at_once_resume_a_run_once(connect):
    session_id = unique("resumers")
    shop = Shop()

    async def coroutine():
        async with connect() as first, connect() as second, connect(deciding=True) as people:
            await run_with_approvals(shop.agent, "Refund", session=HistoryHubSession(session_id, first), wait=0)
            await people.decide(session_id, "call_refund", "approve")
            one, other = await asyncio.gather(
                resume_decided_runs(first, [shop.agent]), resume_decided_runs(second, [shop.agent])
            )
            return one + other

    resumed = run(coroutine())
    assert len(resumed) == 1
    assert shop.refunds == [(1234, 25.0)]


def test_the_model_sees_the_history_the_session_keeps(connect):
    session_id = unique("model-input")
    shop, seen = Shop(), []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            session = HistoryHubSession(session_id, client)
            await run_with_approvals(
                shop.agent,
                "Refund 25 on order 1234",
                session=session,
                on_approval_request=person(people, session_id, "approve", seen),
            )
            return await session.get_items()

    items = run(coroutine())
    assert json.dumps(shop.model.calls[-1].input, sort_keys=True) == json.dumps(items[:3], sort_keys=True)


def test_an_async_tool_that_takes_its_context_runs_with_edited_arguments(connect):
    session_id = unique("async-tool")
    calls = []

    @approval_tool(name_override="issue_refund")
    async def refund(ctx: ToolContext, order: int, amount: float) -> str:
        """Refund part of an order to the customer's card."""
        calls.append((ctx.tool_call_id, order, amount))
        return "ok"

    model = ScriptedModel(
        [[function_call("issue_refund", REFUND, call_id="call_async")], [assistant_message("Done.", item_id="m")]]
    )
    agent = Agent(name=unique("support"), model=model, tools=[refund])
    seen = []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            decide = person(people, session_id, "approve", seen, arguments={"order": 1234, "amount": 7})
            await run_with_approvals(
                agent, "Refund", session=HistoryHubSession(session_id, client), on_approval_request=decide
            )

    run(coroutine())
    assert calls == [("call_async", 1234, 7.0)]


def test_a_result_a_client_application_supplied_stands_in_for_the_tool(connect):
    session_id = unique("supplied")
    shop = Shop()

    async def coroutine():
        async with connect() as client:

            async def client_application(action):
                await client.supply_result(session_id, action["callId"], "Refunded by the billing system.")

            await run_with_approvals(
                shop.agent,
                "Refund",
                session=HistoryHubSession(session_id, client),
                on_approval_request=client_application,
            )

    run(coroutine())
    assert shop.refunds == []
    assert shop.tool_output() == "Refunded by the billing system."


ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"amount": {"type": "number", "maximum": 25}, "note": {"type": "string"}},
    "required": ["amount"],
}


def answered_run(connect, session_id, shop, decision, **details):
    seen = []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            result = await run_with_approvals(
                shop.agent,
                "Refund 25 on order 1234",
                session=HistoryHubSession(session_id, client),
                on_approval_request=person(people, session_id, decision, seen, **details),
            )
            return result, await client.get_client_action(session_id, "call_refund")

    result, action = run(coroutine())
    return result, action, seen


def test_a_persons_answer_is_the_tools_output_and_the_tool_does_not_run(connect):
    shop = Shop(allowed_responses=["approve", "reject", "respond"], response_schema=ANSWER_SCHEMA)

    result, action, [asked] = answered_run(
        connect, unique("respond"), shop, "respond", response={"amount": 10, "note": "Half, as agreed."}
    )

    assert (asked["action"]["allowedResponses"], asked["action"]["responseSchema"]) == (
        ["approve", "reject", "respond"],
        ANSWER_SCHEMA,
    )
    assert result.final_output == "All done."
    assert shop.refunds == []
    assert json.loads(shop.tool_output()) == {"amount": 10, "note": "Half, as agreed."}
    assert (action["status"], action["decision"]) == ("answered", "respond")


def test_a_free_text_answer_reaches_the_model_as_written(connect):
    shop = Shop(allowed_responses=["respond", "dismiss"])

    result, action, _ = answered_run(connect, unique("free"), shop, "respond", response="Ask for the receipt first.")

    assert shop.refunds == []
    assert shop.tool_output() == "Ask for the receipt first."
    assert action["status"] == "answered"


def test_a_dismissed_call_does_not_run_and_the_model_is_told(connect):
    shop = Shop(allowed_responses=["approve", "dismiss"])

    result, action, _ = answered_run(connect, unique("dismiss"), shop, "dismiss")

    assert result.final_output == "All done."
    assert shop.refunds == []
    assert shop.tool_output() == DISMISSED
    assert action["status"] == "dismissed"

"""LangChain / LangGraph agents ask people through HistoryHub (the extra ``langgraph``).

A graph built with ``HumanInTheLoopMiddleware`` (or any graph whose ``interrupt`` carries its
``action_requests`` and ``review_configs``) stops before a gated tool call. ``run_with_reviews`` then
opens one client action per action request, with the ``allowed_decisions`` of its review config as the
action's ``allowedResponses``, waits for the people's decisions, and resumes the graph with
``Command(resume=…)``::

    run = await run_with_reviews(agent, {"messages": [...]}, hub=hub, session_id="support-42", config=config)

The graph's checkpointer holds its state, so a run left waiting (``run.waiting``) is finished later,
in any process, by calling ``run_with_reviews(agent, None, …)`` with the same thread: the call ids are the
model's tool calls' (``tool_call_ids``), kept in the thread's checkpoint, so the same client actions are found
again. The conversation's messages
are added to the HistoryHub session, so its timeline shows them. HistoryHub's docs/clients.md,
"LangGraph", has the whole mapping.

Before it resumes the graph with an approval, the bridge claims the action's one execution with the
arguments the middleware will run (the model's, or the person's edited ones): a call HistoryHub refuses
for other arguments than the approved ones is resumed as a rejection instead, whose message tells the
model why; one that another resumer claimed first is not resumed here at all (``executed_elsewhere``).
"""

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import convert_to_openai_messages
from langgraph.types import Command

from historyhub_client.claims import claim
from historyhub_client.http import AsyncHistoryHubClient

DEFAULT_AGENT = "langgraph"
# Reasons the model reads when no person approved (the middleware passes a reject's message on).
EXPIRED_MESSAGE = "Nobody decided on this tool call in time; it was not run."
DISMISSED_MESSAGE = "A person dismissed this tool call; it was not run."
# HistoryHub statuses that mean the tool may run.
APPROVED = ("approved", "completed", "failed")


@dataclass(frozen=True)
class ReviewedRun:
    """Where a run stopped: the graph's state, and the client actions still waiting (none: it finished).

    ``executed_elsewhere`` lists the call ids of an interrupt another resumer claimed first: this run left the
    thread to it and did not resume it.
    """

    values: dict[str, Any]
    waiting: list[Any] = field(default_factory=list)
    executed_elsewhere: list[str] = field(default_factory=list)


def is_review_request(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("action_requests"), list) and "review_configs" in value


def call_id(interrupt_id: str, index: int) -> str:
    """The call id of an action request no tool call of the model's matches: the same interrupt gives the same ids,
    in whichever process."""
    return f"{interrupt_id}:{index}"


def tool_call_ids(messages: Sequence[Any], requests: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """The id of the model's tool call each action request reviews, or None where none matches.

    The middleware asks about the calls of the last message that made any, in their order, by name and arguments.
    The action takes the call's id, so HistoryHub's timeline shows the approval on the tool call itself (its name,
    its arguments) instead of beside it under an id of the interrupt's; the id is in the thread's checkpoint, so
    every process finds the same one.
    """
    last = next((message for message in reversed(messages) if getattr(message, "tool_calls", None)), None)
    calls = list(last.tool_calls) if last is not None else []
    found: list[str | None] = []
    for request in requests:
        match = next(
            (call for call in calls if call["name"] == request["name"] and call["args"] == request.get("args", {})),
            None,
        )
        if match is not None:
            calls.remove(match)
        found.append(match.get("id") if match is not None else None)
    return found


def allowed_responses(request: Mapping[str, Any], review_configs: Sequence[Mapping[str, Any]]) -> list[str] | None:
    """The review config's allowed_decisions for this action request (matched by name), in HistoryHub's words."""
    for config in review_configs:
        if config.get("action_name") == request["name"]:
            return list(config["allowed_decisions"])
    return None


def decision_for(action: Mapping[str, Any]) -> dict[str, Any]:
    """The middleware's decision for a client action that is no longer waiting."""
    status = action["status"]
    if status in APPROVED:
        edited = action.get("approvedArguments")
        if edited is not None and edited != action["arguments"]:
            return {"type": "edit", "edited_action": {"name": action["name"], "args": edited}}
        return {"type": "approve"}
    if status == "answered":
        response = action.get("response")
        return {"type": "respond", "message": response if isinstance(response, str) else json.dumps(response)}
    if status == "rejected":
        return {"type": "reject", "message": action["comment"]} if action.get("comment") else {"type": "reject"}
    if status == "dismissed":
        return {"type": "reject", "message": DISMISSED_MESSAGE}
    return {"type": "reject", "message": EXPIRED_MESSAGE}


async def open_reviews(
    hub: AsyncHistoryHubClient, session_id: str, interrupt: Any, messages: Sequence[Any] = ()
) -> list[Any]:
    """A client action for each action request of ``interrupt`` (the existing ones when already opened), under the
    id of the tool call of ``messages`` (the thread's) it reviews."""
    requests, configs = interrupt.value["action_requests"], interrupt.value["review_configs"]
    actions = []
    for index, (request, tool_call_id) in enumerate(zip(requests, tool_call_ids(messages, requests), strict=True)):
        actions.append(
            await hub.open_client_action(
                session_id,
                tool_call_id or call_id(interrupt.id, index),
                request["name"],
                request.get("args", {}),
                description=request.get("description"),
                allowed_responses=allowed_responses(request, configs),
            )
        )
    return actions


async def decisions(
    hub: AsyncHistoryHubClient, session_id: str, interrupt: Any, actions: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]] | None:
    """The middleware's decisions for an interrupt's decided actions (one per action request, in order); each
    approval claimed first with the arguments the middleware will run, and a refused one a rejection saying why.

    None when another resumer claimed one of them first: it resumes the thread, and a second resumption of the
    same thread at once could run its tools again (its checkpoints are shared), so this one must not resume.
    """
    decided = []
    for request, action in zip(interrupt.value["action_requests"], actions, strict=True):
        decision = decision_for(action)
        if decision["type"] in ("approve", "edit"):
            edited = decision.get("edited_action")
            arguments = request.get("args", {}) if edited is None else edited["args"]
            refused = await claim(hub, session_id, action["callId"], arguments)
            if refused is not None and refused.code == "already_executed":
                return None
            if refused is not None:
                decision = {"type": "reject", "message": refused.message}
        decided.append(decision)
    return decided


async def record_messages(hub: AsyncHistoryHubClient, session_id: str, agent: str, values: Mapping[str, Any]) -> None:
    """Add the conversation's messages to the session, each once (by its id), in chat format."""
    messages = [message for message in values.get("messages", []) if message.id]
    if not messages:
        return
    items = [
        {**item, "id": message.id} for message, item in zip(messages, convert_to_openai_messages(messages), strict=True)
    ]
    await hub.add_items(session_id, items, agent, skip_existing_ids=True)


async def run_with_reviews(
    graph: Any,
    graph_input: Any,
    *,
    hub: AsyncHistoryHubClient,
    session_id: str,
    config: Mapping[str, Any],
    agent: str = DEFAULT_AGENT,
    timeout: float | None = None,
) -> ReviewedRun:
    """Run ``graph`` on ``graph_input`` (None: go on from the thread's checkpoint) until it ends, each review
    decided in HistoryHub; or until ``timeout`` seconds (in all) pass with a decision still missing.

    ``hub`` is an AsyncHistoryHubClient; ``config`` names the graph's thread (``{"configurable":
    {"thread_id": …}}``). Returns a ReviewedRun: ``waiting`` lists the undecided actions when it timed out.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    await hub.create_session(agent, session_id)
    if graph_input is not None:
        await graph.ainvoke(graph_input, config)
    while True:
        state = await graph.aget_state(config)
        await record_messages(hub, session_id, agent, state.values)
        reviews = [interrupt for interrupt in state.interrupts if is_review_request(interrupt.value)]
        if not reviews:
            return ReviewedRun(state.values)
        answered, waiting = [], []
        for interrupt in reviews:
            decided = []
            for action in await open_reviews(hub, session_id, interrupt, state.values.get("messages", [])):
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                action = await hub.wait_for_client_action(session_id, action["callId"], timeout=left)
                if action["status"] == "waiting":
                    waiting.append(action)
                decided.append(action)
            answered.append((interrupt, decided))
        if waiting:
            return ReviewedRun(state.values, waiting)
        # Claimed only now that the graph resumes at once: a claim is the one run of its tool.
        resume = {}
        for interrupt, decided in answered:
            resume[interrupt.id] = {"decisions": await decisions(hub, session_id, interrupt, decided)}
            if resume[interrupt.id]["decisions"] is None:
                return ReviewedRun(state.values, executed_elsewhere=[action["callId"] for action in decided])
        await graph.ainvoke(Command(resume=resume), config)

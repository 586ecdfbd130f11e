"""LangChain / LangGraph agents ask people through HistoryHub (the extra ``langgraph``).

A graph built with ``HumanInTheLoopMiddleware`` (or any graph whose ``interrupt`` carries its
``action_requests`` and ``review_configs``) stops before a gated tool call. ``run_with_reviews`` then
opens one client action per action request, with the ``allowed_decisions`` of its review config as the
action's ``allowedResponses``, waits for the people's decisions, and resumes the graph with
``Command(resume=…)``::

    run = await run_with_reviews(agent, {"messages": [...]}, hub=hub, session_id="support-42", config=config)

The graph's checkpointer holds its state, so a run left waiting (``run.waiting``) is finished later,
in any process, by calling ``run_with_reviews(agent, None, …)`` with the same thread: the call ids are
derived from the interrupt, so the same client actions are found again. The conversation's messages
are added to the HistoryHub session, so its timeline shows them. HistoryHub's docs/clients.md,
"LangGraph", has the whole mapping.
"""

import json
import time
from dataclasses import dataclass, field

from langchain_core.messages import convert_to_openai_messages
from langgraph.types import Command

DEFAULT_AGENT = "langgraph"
# Reasons the model reads when no person approved (the middleware passes a reject's message on).
EXPIRED_MESSAGE = "Nobody decided on this tool call in time; it was not run."
DISMISSED_MESSAGE = "A person dismissed this tool call; it was not run."
# HistoryHub statuses that mean the tool may run.
APPROVED = ("approved", "completed", "failed")


@dataclass(frozen=True)
class ReviewedRun:
    """Where a run stopped: the graph's state, and the client actions still waiting (none: it finished)."""

    values: dict
    waiting: list = field(default_factory=list)


def is_review_request(value):
    return isinstance(value, dict) and isinstance(value.get("action_requests"), list) and "review_configs" in value


def call_id(interrupt_id, index):
    """One action request's call id: the same interrupt gives the same ids, in whichever process."""
    return f"{interrupt_id}:{index}"


def allowed_responses(request, review_configs):
    """The review config's allowed_decisions for this action request (matched by name), in HistoryHub's words."""
    for config in review_configs:
        if config.get("action_name") == request["name"]:
            return list(config["allowed_decisions"])
    return None


def decision_for(action):
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


async def open_reviews(hub, session_id, interrupt):
    """A client action for each action request of ``interrupt`` (the existing ones when already opened)."""
    requests, configs = interrupt.value["action_requests"], interrupt.value["review_configs"]
    actions = []
    for index, request in enumerate(requests):
        actions.append(
            await hub.open_client_action(
                session_id,
                call_id(interrupt.id, index),
                request["name"],
                request.get("args", {}),
                description=request.get("description"),
                allowed_responses=allowed_responses(request, configs),
            )
        )
    return actions


async def record_messages(hub, session_id, agent, values):
    """Add the conversation's messages to the session, each once (by its id), in chat format."""
    messages = [message for message in values.get("messages", []) if message.id]
    if not messages:
        return
    items = [
        {**item, "id": message.id} for message, item in zip(messages, convert_to_openai_messages(messages), strict=True)
    ]
    await hub.add_items(session_id, items, agent, skip_existing_ids=True)


async def run_with_reviews(graph, graph_input, *, hub, session_id, config, agent=DEFAULT_AGENT, timeout=None):
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
        resume, waiting = {}, []
        for interrupt in reviews:
            decided = []
            for action in await open_reviews(hub, session_id, interrupt):
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                action = await hub.wait_for_client_action(session_id, action["callId"], timeout=left)
                if action["status"] == "waiting":
                    waiting.append(action)
                decided.append(action)
            resume[interrupt.id] = {"decisions": [decision_for(action) for action in decided]}
        if waiting:
            return ReviewedRun(state.values, waiting)
        await graph.ainvoke(Command(resume=resume), config)

"""A LangChain agent whose refunds a person reviews: ``create_agent`` with ``HumanInTheLoopMiddleware``, an
offline chat model and a checkpointer.

``python -m tests.langgraph_agent URL KEY SESSION_ID THREAD_ID DATABASE start|resume`` runs it in a process
of its own with a SQLite checkpointer in DATABASE: ``start`` asks and stops without waiting, ``resume``
finishes the thread once the person decided. Each prints where the run stopped as one JSON line.
"""

import asyncio
import json
import sys

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from historyhub_client import AsyncHistoryHubClient
from historyhub_client.langgraph import run_with_reviews

REFUND = {"order": 1234, "amount": 25}


@tool
def issue_refund(order: int, amount: int) -> str:
    """Refund part of an order to the customer's card."""
    return f"Refunded {amount} on order {order}."


class RefundModel(BaseChatModel):
    """The offline model: ask for the refund, then report what the tool answered."""

    @property
    def _llm_type(self):
        return "refund-script"

    def bind_tools(self, tools, **options):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **options):
        answers = [message for message in messages if isinstance(message, ToolMessage)]
        if answers:
            reply = AIMessage(content=f"Done: {answers[-1].content}")
        else:
            reply = AIMessage(content="", tool_calls=[{"name": "issue_refund", "args": REFUND, "id": "call_refund"}])
        return ChatResult(generations=[ChatGeneration(message=reply)])


def refund_agent(checkpointer, refund_tool=issue_refund):
    review = HumanInTheLoopMiddleware(
        interrupt_on={"issue_refund": {"allowed_decisions": ["approve", "edit", "reject"]}}
    )
    return create_agent(RefundModel(), tools=[refund_tool], middleware=[review], checkpointer=checkpointer)


def stopped(run):
    stop = {"waiting": [action["callId"] for action in run.waiting], "last": run.values["messages"][-1].content}
    return stop | ({"elsewhere": run.executed_elsewhere} if run.executed_elsewhere else {})


async def main(url, key, session_id, thread_id, database, step):
    config = {"configurable": {"thread_id": thread_id}}
    request = {"messages": [{"role": "user", "content": "Refund 25 on order 1234"}]} if step == "start" else None
    async with AsyncSqliteSaver.from_conn_string(database) as checkpointer, AsyncHistoryHubClient(url, key) as hub:
        run = await run_with_reviews(
            refund_agent(checkpointer), request, hub=hub, session_id=session_id, config=config, timeout=0
        )
    print(json.dumps(stopped(run)), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:7]))

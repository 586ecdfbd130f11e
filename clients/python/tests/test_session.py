"""HistoryHubSession: the OpenAI Agents SDK's Session over a live server, with the real SDK."""

import json
from asyncio import run
from types import SimpleNamespace

import httpx2
import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, SessionSettings, SQLiteSession, function_tool
from agents.memory import OpenAIResponsesCompactionSession, Session
from agents.testing import ScriptedModel, assistant_message, function_call
from openai import AsyncOpenAI

from historyhub_client import HistoryHubError, HistoryHubSession
from historyhub_client.http import AsyncHistoryHubClient
from tests.support.ids import unique
from tests.support.tiny_server import TinyServer


def test_a_session_is_an_agents_sdk_session(connect):
    async def coroutine():
        async with connect() as client:
            return HistoryHubSession("s", client, session_settings=SessionSettings(limit=3))

    session = run(coroutine())
    assert isinstance(session, Session)
    assert session.session_settings == SessionSettings(limit=3)


def test_a_session_speaks_the_agent_sdk_protocol(connect, hub):
    session_id = unique("client-sdk")
    hello, hi = {"id": "u1", "role": "user", "content": "Hello"}, {"id": "a1", "role": "assistant", "content": "Hi!"}

    async def coroutine():
        async with connect() as client:
            session = HistoryHubSession(session_id, client, agent="supportAgent")
            await session.add_items([hello, hi])
            everything, newest = await session.get_items(), await session.get_items(limit=1)
            popped = await session.pop_item()
            await session.clear_session()
            return everything, newest, popped, await session.get_items(), await session.pop_item()

    everything, newest, popped, cleared, popped_from_empty = run(coroutine())
    assert (everything, newest, popped) == ([hello, hi], [hi], hi)
    assert (cleared, popped_from_empty) == ([], None)
    assert hub.get_session(session_id)["agent"] == "supportAgent"


def test_session_settings_limit_how_many_items_are_read_by_default(connect):
    session_id = unique("client-limit")

    async def coroutine():
        async with connect() as client:
            session = HistoryHubSession(session_id, client, session_settings=SessionSettings(limit=2))
            await session.add_items([{"role": "user", "content": str(number)} for number in range(5)])
            return await session.get_items(), await session.get_items(limit=4)

    by_default, asked = run(coroutine())
    assert [item["content"] for item in by_default] == ["3", "4"]
    assert [item["content"] for item in asked] == ["1", "2", "3", "4"]


def test_an_item_the_server_did_not_store_is_an_error_not_a_silent_loss():
    half = (200, {}, {"inserted": [True, False], "itemCount": 1})

    async def coroutine(url):
        async with AsyncHistoryHubClient(url, "hh_key") as client:
            session = HistoryHubSession("s", client)
            await session.add_items([{"id": "x", "role": "user"}, {"id": "x", "role": "user"}])

    with TinyServer([half]) as server, pytest.raises(HistoryHubError) as raised:
        run(coroutine(server.url))
    assert raised.value.code == "items_not_stored"
    assert "1 of 2" in raised.value.message


TURNS = ["Where is order 1?", "Thanks!", "And order 2?"]


@function_tool
def lookup_order(order: int) -> str:
    return f"Order {order} shipped."


def scripted_model():
    """The SDK's test model, whose replies all share one id."""
    return ScriptedModel(
        [
            [function_call("lookup_order", {"order": 1}, call_id="call_1")],
            [assistant_message("Order 1 shipped.")],
            [assistant_message("You are welcome.")],
            [function_call("lookup_order", {"order": 2}, call_id="call_2")],
            [assistant_message("Order 2 shipped too.")],
        ]
    )


class ChatCompletionsAnswers:
    """Chat Completions answers over an offline transport (the OpenAI API is outside this machine).

    Through ``OpenAIChatCompletionsModel`` the SDK stamps every item ``"id": "__fake_id__"``.
    """

    def __init__(self):
        self.requests = []
        self.answers = [
            {"tool_calls": [{"id": "call_1", "function": {"name": "lookup_order", "arguments": '{"order":1}'}}]},
            {"content": "Order 1 shipped."},
            {"content": "You are welcome."},
            {"tool_calls": [{"id": "call_2", "function": {"name": "lookup_order", "arguments": '{"order":2}'}}]},
            {"content": "Order 2 shipped too."},
        ]

    def __call__(self, request):
        self.requests.append(json.loads(request.content))
        message = {"role": "assistant", "content": None, **self.answers.pop(0)}
        for call in message.get("tool_calls", []):
            call["type"] = "function"
        answer = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4.1",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return httpx2.Response(200, json=answer)

    def model(self):
        http_client = httpx2.AsyncClient(transport=httpx2.MockTransport(self))
        return OpenAIChatCompletionsModel("gpt-4.1", AsyncOpenAI(api_key="offline", http_client=http_client))


async def converse(session, model):
    """Three turns, two of them with a tool call."""
    agent = Agent(name="support", model=model, tools=[lookup_order])
    for text in TURNS:
        await Runner.run(agent, text, session=session)


def test_every_item_is_kept_when_ids_repeat_as_in_the_sdks_own_store(connect):
    session_id = unique("client-keep")

    async def coroutine():
        async with connect() as client:
            ours, theirs = HistoryHubSession(session_id, client), SQLiteSession(session_id)
            ours_model, theirs_model = scripted_model(), scripted_model()
            await converse(ours, ours_model)
            await converse(theirs, theirs_model)
            return await ours.get_items(), await theirs.get_items(), ours_model.calls, theirs_model.calls

    ours, theirs, ours_calls, theirs_calls = run(coroutine())
    assert len(theirs) == 10
    assert ours == theirs
    assert [call.input for call in ours_calls] == [call.input for call in theirs_calls]


def test_every_item_of_a_chat_completions_model_is_kept_despite_its_placeholder_ids(connect):
    session_id = unique("client-chat")

    async def coroutine():
        async with connect() as client:
            ours, theirs = HistoryHubSession(session_id, client), SQLiteSession(session_id)
            ours_answers, theirs_answers = ChatCompletionsAnswers(), ChatCompletionsAnswers()
            await converse(ours, ours_answers.model())
            await converse(theirs, theirs_answers.model())
            return await ours.get_items(), await theirs.get_items(), ours_answers.requests, theirs_answers.requests

    ours, theirs, ours_requests, theirs_requests = run(coroutine())
    assert len(theirs) == 10
    assert sum(item.get("id") == "__fake_id__" for item in theirs) == 5
    assert ours == theirs
    assert [request["messages"] for request in ours_requests] == [request["messages"] for request in theirs_requests]
    # No orphan tool message: each follows the assistant message that called it.
    roles = [message["role"] for message in ours_requests[-1]["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant", "user", "assistant", "tool"]


class FakeOpenAI:
    """Stands in for the OpenAI API, which is outside this machine: responses.compact returns canned output."""

    def __init__(self, output):
        self.requests = []

        async def compact(**request):
            self.requests.append(request)
            return SimpleNamespace(output=output, usage=None)

        self.responses = SimpleNamespace(compact=compact)


SUMMARY = [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Refund order 1234"}]},
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "summary-of-earlier-turns"},
]


def test_the_sdks_compaction_session_archives_through_compaction_and_keeps_waiting_actions(connect, hub):
    session_id = unique("client-compact")
    hub.create_session("support", session_id)
    hub.add_items(session_id, [{"role": "user", "content": str(number)} for number in range(12)])
    hub.open_client_action(session_id, "call_9", "issue_refund", {"amount": 5})
    openai = FakeOpenAI(SUMMARY)

    async def coroutine():
        async with connect() as client:
            underlying = HistoryHubSession(session_id, client)
            compacting = OpenAIResponsesCompactionSession(session_id, underlying, client=openai)
            await compacting.run_compaction({"force": True})
            return await compacting.get_items()

    assert run(coroutine()) == SUMMARY
    assert [item["content"] for item in openai.requests[0]["input"]] == [str(number) for number in range(12)]
    snapshot = hub.get_session(session_id)
    # Clear + add would have deleted the waiting action and reset runStatus.
    assert snapshot["runStatus"] == "waiting_for_client_action"
    assert snapshot["pendingClientActions"] == [
        {"callId": "call_9", "name": "issue_refund", "arguments": {"amount": 5}}
    ]
    assert hub.get_client_action(session_id, "call_9")["status"] == "waiting"


def test_automatic_compaction_after_a_turn_goes_through_compaction_too(connect, hub):
    session_id = unique("client-auto-compact")
    openai = FakeOpenAI(SUMMARY)
    agent = Agent(name="support", model=ScriptedModel([[assistant_message("Noted.", item_id="msg_1")]]))

    async def coroutine():
        async with connect() as client:
            underlying = HistoryHubSession(session_id, client, agent="support")
            compacting = OpenAIResponsesCompactionSession(
                session_id,
                underlying,
                client=openai,
                compaction_mode="input",
                should_trigger_compaction=lambda context: True,
            )
            await Runner.run(agent, "Please remember order 1234.", session=compacting)
            return await underlying.get_items()

    assert run(coroutine()) == SUMMARY
    compacted = openai.requests[0]["input"]
    assert [item["role"] for item in compacted] == ["user", "assistant"]
    assert json.dumps(compacted).count("Please remember order 1234.") == 1
    assert hub.get_session(session_id)["itemCount"] == 2

"""The Python client against a live server, over real HTTP."""

import asyncio
import threading
import time

import pytest
from django.db import connection

from historyhub.apikeys.models import ApiKey
from historyhub.client import HistoryHubClient, HistoryHubError, HistoryHubSession
from historyhub.history import client_actions

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def hub(asgi_live_server):
    return HistoryHubClient(asgi_live_server.url, ApiKey.issue("client tests", "write")[1], timeout=10)


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_session_speaks_the_agent_sdk_protocol(hub):
    session = HistoryHubSession("client-sdk", hub, agent="supportAgent")
    run(
        session.add_items(
            [{"id": "u1", "role": "user", "content": "Hello"}, {"id": "a1", "role": "assistant", "content": "Hi!"}]
        )
    )
    run(session.add_items([{"id": "u1", "role": "user", "content": "Hello"}]))
    assert run(session.get_items()) == [
        {"id": "u1", "role": "user", "content": "Hello"},
        {"id": "a1", "role": "assistant", "content": "Hi!"},
    ]
    assert run(session.get_items(limit=1)) == [{"id": "a1", "role": "assistant", "content": "Hi!"}]
    assert run(session.pop_item()) == {"id": "a1", "role": "assistant", "content": "Hi!"}
    assert hub.get_session("client-sdk")["agent"] == "supportAgent"
    run(session.clear_session())
    assert run(session.get_items()) == []
    assert run(session.pop_item()) is None


def test_a_transaction_applies_once(hub):
    session = HistoryHubSession("client-tx", hub)
    transaction = {"type": "append_items", "items": [{"id": "x", "role": "user", "content": "once"}]}
    assert run(session.apply_history_transaction(transaction, operation_id="op-1")) is True
    assert run(session.apply_history_transaction(transaction, operation_id="op-1")) is False
    assert len(run(session.get_items())) == 1


def test_compaction_replaces_the_logical_history(hub):
    session = HistoryHubSession("client-compact", hub)
    run(session.add_items([{"role": "user", "content": str(n)} for n in range(5)]))
    run(session.replace_with_compaction([{"type": "compaction", "summary": "five numbers"}]))
    assert run(session.get_items()) == [{"type": "compaction", "summary": "five numbers"}]


def test_errors_arrive_with_the_contract_code(hub):
    with pytest.raises(HistoryHubError) as raised:
        hub.get_session("no-such-session")
    assert (raised.value.status, raised.value.code) == (404, "session_not_found")
    with pytest.raises(HistoryHubError) as raised:
        HistoryHubClient(hub.base_url, "hh_wrong").get_items("x")
    assert raised.value.code == "unauthorized"


def test_an_agent_waits_for_a_person_to_decide(hub):
    hub.create_session("supportAgent", "client-wait")
    hub.open_client_action("client-wait", "call_1", "request_human_approval", {"amount": 750})

    def person_decides():
        try:
            # Long enough for the agent's request to be waiting already.
            time.sleep(0.5)
            client_actions.decide("client-wait", "call_1", decision="approve", comment="fine", resolved_by="owner")
        finally:
            connection.close()

    decider = threading.Thread(target=person_decides)
    decider.start()
    action = hub.wait_for_client_action("client-wait", "call_1", timeout=8)
    decider.join()
    assert action["status"] == "approved"
    assert action["resolvedBy"] == "owner"
    assert action["approvedArguments"] == {"amount": 750}

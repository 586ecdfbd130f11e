"""The synchronous and asynchronous clients, over real HTTP: the live server, or a tiny scripted one."""

import asyncio
import uuid
from asyncio import run
from datetime import UTC, datetime, timedelta

import pytest

from historyhub_client import AsyncHistoryHubClient, HistoryHubClient, HistoryHubError, RetryPolicy
from tests.support.ids import unique
from tests.support.tiny_server import DROP, FORWARD, FORWARD_THEN_DROP, TinyServer

QUICK = RetryPolicy(attempts=3, backoff=0.01, max_delay=5)
WAITING = {"sessionId": "s", "callId": "c", "status": "waiting", "expiresAt": None}


def test_a_script_and_a_coroutine_call_the_same_endpoints(hub, connect):
    session_id = unique("client-both")
    hub.create_session("support", session_id)
    hub.add_items(session_id, [{"role": "user", "content": "from a script"}])

    async def coroutine():
        async with connect() as client:
            await client.add_items(session_id, [{"role": "user", "content": "from a coroutine"}])
            return await client.get_items(session_id)

    assert run(coroutine()) == hub.get_items(session_id)
    assert [item["content"] for item in hub.get_items(session_id)] == ["from a script", "from a coroutine"]
    assert hub.get_session(session_id)["itemCount"] == 2


def test_every_endpoint_family_answers_through_the_client(hub):
    tour, agent = unique("client-tour"), unique("tour-guide")
    hub.create_session(agent, tour, name="Tour", metadata={"customer": "ada"})
    assert hub.update_session(tour, name="Renamed", run_status="running")["runStatus"] == "running"
    assert [session["sessionId"] for session in hub.list_sessions(agent=agent)["items"]] == [tour]
    assert hub.add_items(tour, [{"id": "u1", "role": "user", "content": "Hi"}])["inserted"] == [True]
    assert hub.add_injection(tour, "Welcome back")["kind"] == "injection"
    assert hub.find_response(tour, "u1") == {"result": "miss"}
    assert [entry["kind"] for entry in hub.entries(tour)] == ["turn", "injection"]
    assert hub.get_messages(tour)[0] == {"role": "user", "content": "Hi"}
    assert hub.history(tour, page_size=10)["total"] == 2
    assert hub.pop_item(tour)["role"] == "assistant"
    hub.replace_items(tour, [{"role": "user", "content": "again"}])
    assert hub.get_items(tour, limit=5) == [{"role": "user", "content": "again"}]
    transaction = {"type": "append_items", "items": [{"role": "assistant", "content": "once"}]}
    assert hub.apply_transaction(tour, "op-1", transaction) is True
    assert hub.apply_transaction(tour, "op-1", transaction) is False
    hub.open_client_action(tour, "call-1", "lookup", {"q": 1}, description="Look it up")
    assert hub.list_client_actions(status="waiting", session_id=tour)["items"][0]["callId"] == "call-1"
    assert hub.supply_result(tour, "call-1", {"found": True})["status"] == "completed"
    hub.clear_items(tour)
    assert hub.get_items(tour) == []
    hub.delete_session(tour)
    with pytest.raises(HistoryHubError) as raised:
        hub.get_session(tour)
    assert raised.value.code == "session_not_found"


def test_errors_arrive_with_status_code_and_message(hub, server):
    with pytest.raises(HistoryHubError) as raised:
        hub.get_session("no-such-session")
    assert (raised.value.status, raised.value.code) == (404, "session_not_found")
    assert "no-such-session" in raised.value.message
    with pytest.raises(HistoryHubError) as raised:
        hub.create_session("")
    assert (raised.value.status, raised.value.code) == (400, "invalid_input")
    with HistoryHubClient(server.url, "hh_wrong") as stranger, pytest.raises(HistoryHubError) as raised:
        stranger.get_items("x")
    assert (raised.value.status, raised.value.code) == (401, "unauthorized")


def test_a_server_that_cannot_be_reached_is_an_error_without_a_status():
    with TinyServer([]) as server:
        url = server.url
    with HistoryHubClient(url, "hh_key", retry=QUICK) as client, pytest.raises(HistoryHubError) as raised:
        client.get_session("s")
    assert (raised.value.status, raised.value.code) == (None, "connection_failed")


def test_ids_reach_the_server_percent_encoded_one_segment_each():
    with TinyServer([(200, {}, WAITING)] * 5) as server, HistoryHubClient(server.url, "hh_key") as client:
        for call_id in ["call/1", "50% off", "ünï", "..", "."]:
            client.get_client_action("ses-1", call_id)
    assert [request["path"] for request in server.requests] == [
        "/api/v1/sessions/ses-1/client-actions/call%2F1",
        "/api/v1/sessions/ses-1/client-actions/50%25%20off",
        "/api/v1/sessions/ses-1/client-actions/%C3%BCn%C3%AF",
        "/api/v1/sessions/ses-1/client-actions/%2E%2E",
        "/api/v1/sessions/ses-1/client-actions/%2E",
    ]


@pytest.mark.parametrize("call_id", ["call/1", "50% off", "with space", "ünï", "..", "a?b#c"])
def test_a_client_action_with_any_id_can_be_opened_read_and_decided(hub, people, call_id):
    # Waits for the server side of "any id can be addressed" (%2F in a path).
    session_id = unique("client-ids")
    hub.create_session("support", session_id)
    hub.open_client_action(session_id, call_id, "refund", {"amount": 1})
    assert hub.get_client_action(session_id, call_id)["callId"] == call_id
    assert people.decide(session_id, call_id, "approve")["status"] == "approved"


def test_one_connection_carries_many_calls():
    with TinyServer([]) as server:
        with HistoryHubClient(server.url, "hh_key") as client:
            for _ in range(5):
                client.get_session("s")

        async def coroutine():
            async with AsyncHistoryHubClient(server.url, "hh_key") as client:
                for _ in range(5):
                    await client.update_session("s", name="n")

        run(coroutine())
    assert len(server.requests) == 10
    assert server.connections == 2


def test_a_write_whose_answer_was_lost_is_sent_again_with_the_same_idempotency_key():
    inserted = (200, {}, {"inserted": [True], "itemCount": 1})
    with TinyServer([DROP, inserted]) as server, HistoryHubClient(server.url, "hh_key", retry=QUICK) as client:
        assert client.add_items("s", [{"role": "user", "content": "Hi"}]) == {"inserted": [True], "itemCount": 1}
    first, second = server.requests
    assert first["body"] == second["body"] == {"items": [{"role": "user", "content": "Hi"}]}
    assert first["headers"]["Idempotency-Key"] == second["headers"]["Idempotency-Key"]
    assert uuid.UUID(first["headers"]["Idempotency-Key"]).version == 4


def test_every_write_carries_its_own_idempotency_key_and_reads_carry_none():
    with TinyServer([]) as server, HistoryHubClient(server.url, "hh_key") as client:
        client.create_session("support", "s")
        client.update_session("s", name="n")
        client.replace_items("s", [])
        client.decide("s", "c", "approve")
        client.delete_session("s")
        client.get_session("s")
        client.list_sessions()
    keys = [request["headers"].get("Idempotency-Key") for request in server.requests]
    assert [request["method"] for request in server.requests] == [
        "POST",
        "PATCH",
        "PUT",
        "POST",
        "DELETE",
        "GET",
        "GET",
    ]
    assert all(keys[:5]) and len(set(keys[:5])) == 5
    assert keys[5:] == [None, None]


def test_a_503_is_tried_again_after_its_retry_after():
    unavailable = (503, {"Retry-After": "1"}, {"error": {"code": "service_unavailable", "message": "later"}})
    with (
        TinyServer([unavailable, (200, {}, {"sessionId": "s"})]) as server,
        HistoryHubClient(server.url, "hh_key", retry=QUICK) as client,
    ):
        assert client.get_session("s") == {"sessionId": "s"}
    assert len(server.requests) == 2


def test_a_rate_limited_write_is_tried_again():
    limited = (429, {"Retry-After": "0"}, {"error": {"code": "rate_limited", "message": "slow down"}})
    with (
        TinyServer([limited, (201, {}, {"sessionId": "s"})]) as server,
        HistoryHubClient(server.url, "hh_key", retry=QUICK) as client,
    ):
        assert client.create_session("support", "s") == {"sessionId": "s"}
    assert len(server.requests) == 2
    assert server.requests[0]["headers"]["Idempotency-Key"] == server.requests[1]["headers"]["Idempotency-Key"]


def test_a_transaction_is_tried_again_by_its_operation_id_alone():
    failed = (500, {}, {"error": {"code": "internal_error", "message": "oops"}})
    with (
        TinyServer([failed, (200, {}, {"applied": True})]) as server,
        HistoryHubClient(server.url, "hh_key", retry=QUICK) as client,
    ):
        assert client.apply_transaction("s", "op-7", {"type": "append_items", "items": []}) is True
    first, second = server.requests
    assert first["body"] == second["body"] and first["body"]["operationId"] == "op-7"
    assert "Idempotency-Key" not in first["headers"]


def test_a_client_error_is_not_tried_again():
    invalid = (400, {}, {"error": {"code": "invalid_input", "message": "items: bad"}})
    with (
        TinyServer([invalid]) as server,
        HistoryHubClient(server.url, "hh_key", retry=QUICK) as client,
        pytest.raises(HistoryHubError) as raised,
    ):
        client.add_items("s", [])
    assert (raised.value.status, raised.value.code, raised.value.message) == (400, "invalid_input", "items: bad")
    assert len(server.requests) == 1


def test_a_write_sent_without_an_idempotency_key_is_not_tried_again():
    with (
        TinyServer([DROP, (200, {}, {})]) as server,
        HistoryHubClient(server.url, "hh_key", retry=QUICK) as client,
        pytest.raises(HistoryHubError) as raised,
    ):
        client.request("POST", "sessions/s/items", {"items": []}, idempotent=False)
    assert raised.value.code == "connection_failed"
    assert len(server.requests) == 1


def test_tries_stop_after_the_last_attempt():
    failed = (502, {}, {"error": {"code": "bad_gateway", "message": "proxy"}})
    with (
        TinyServer([failed] * 5) as server,
        HistoryHubClient(server.url, "hh_key", retry=QUICK) as client,
        pytest.raises(HistoryHubError) as raised,
    ):
        client.get_session("s")
    assert raised.value.status == 502
    assert len(server.requests) == 3


def test_a_long_wait_is_one_long_poll_of_a_minute_after_another():
    decided = {**WAITING, "status": "approved"}
    with TinyServer([(200, {}, WAITING)] * 3 + [(200, {}, decided)]) as server:

        async def coroutine():
            async with AsyncHistoryHubClient(server.url, "hh_key") as client:
                return await client.wait_for_client_action("s", "c", timeout=3600)

        assert run(coroutine())["status"] == "approved"
    assert [request["path"] for request in server.requests] == ["/api/v1/sessions/s/client-actions/c?wait=60"] * 4


def test_a_wait_with_a_timeout_returns_the_action_still_waiting(hub):
    session_id = unique("client-timeout")
    hub.create_session("support", session_id)
    hub.open_client_action(session_id, "call-1", "refund", {})
    assert hub.wait_for_client_action(session_id, "call-1", timeout=0.5)["status"] == "waiting"


def test_a_wait_ends_when_the_action_expires(hub):
    session_id = unique("client-expiry")
    hub.create_session("support", session_id)
    expires_at = (datetime.now(UTC) + timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    hub.open_client_action(session_id, "call-1", "refund", {}, expires_at=expires_at)
    assert hub.wait_for_client_action(session_id, "call-1", timeout=30)["status"] == "expired"


def test_an_agent_waits_while_a_person_decides(connect):
    session_id = unique("client-wait")

    async def coroutine():
        async with connect() as agent, connect(deciding=True) as person:
            await agent.create_session("support", session_id)
            await agent.open_client_action(session_id, "call_1", "request_human_approval", {"amount": 750})
            waited, decided = await asyncio.gather(
                agent.wait_for_client_action(session_id, "call_1"),
                person.decide(session_id, "call_1", "approve", comment="fine", arguments={"amount": 500}),
            )
            return waited, decided

    waited, decided = run(coroutine())
    assert waited == decided
    assert waited["status"] == "approved"
    assert waited["resolvedBy"] == "api key: people"
    assert (waited["arguments"], waited["approvedArguments"]) == ({"amount": 750}, {"amount": 500})


def test_a_write_whose_answer_was_lost_is_stored_once_when_tried_again(server, key, hub):
    session_id = unique("client-lost-answer")
    hub.create_session("support", session_id)
    with (
        TinyServer([FORWARD_THEN_DROP, FORWARD], forward_to=server.url) as proxy,
        HistoryHubClient(proxy.url, key, retry=QUICK) as client,
    ):
        answer = client.add_items(session_id, [{"role": "user", "content": "only once"}])
    assert answer == {"inserted": [True], "itemCount": 1}
    assert len(proxy.requests) == 2
    assert hub.get_items(session_id) == [{"role": "user", "content": "only once"}]

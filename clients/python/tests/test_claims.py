"""Executing what was approved, once: the clients' claim_execution and its typed refusals, and the Agents SDK
bridge, which claims every approved call before it runs it (the real SDK, its offline model, the live server)."""

import asyncio
from asyncio import run

import pytest
from agents.testing import assistant_message, function_call

from historyhub_client import (
    AlreadyExecutedError,
    ArgumentsMismatchError,
    ExecutionRefusedError,
    HistoryHubError,
    HistoryHubSession,
    NotApprovedError,
    arguments_digest,
)
from historyhub_client.approvals import resume_decided_runs, run_with_approvals
from historyhub_client.claims import MISMATCH
from tests.support.ids import unique
from tests.test_approvals import REFUND, Shop, person

EDITED = {"order": 1234, "amount": 20.0}
# A resumed run asks the model once more each time it is resumed.
ONE_CALL_THEN_ANSWERS = (
    [function_call("issue_refund", REFUND, call_id="call_refund")],
    [assistant_message("All done.", item_id="msg_1")],
    [assistant_message("All done again.", item_id="msg_2")],
)


def refused(error, kind, code):
    assert isinstance(error, kind)
    assert isinstance(error, ExecutionRefusedError)
    assert isinstance(error, HistoryHubError)
    assert (error.status, error.code) == (409, code)


def test_the_first_claim_of_the_approved_arguments_is_the_only_one(hub, people):
    session_id = unique("claims")
    hub.create_session("claims", session_id)
    hub.open_client_action(session_id, "call_1", "issue_refund", REFUND)
    with pytest.raises(NotApprovedError) as waiting:
        hub.claim_execution(session_id, "call_1", arguments_digest(REFUND))
    refused(waiting.value, NotApprovedError, "not_approved")

    people.decide(session_id, "call_1", "approve", arguments=EDITED)
    # The model's arguments are not the approved ones any more.
    with pytest.raises(ArgumentsMismatchError) as other:
        hub.claim_execution(session_id, "call_1", arguments_digest(REFUND))
    refused(other.value, ArgumentsMismatchError, "arguments_mismatch")
    assert hub.get_client_action(session_id, "call_1")["executedAt"] is None

    # Key order and number form do not matter: 20 is 20.0.
    digest = arguments_digest({"amount": 20, "order": 1234})
    claimed = hub.claim_execution(session_id, "call_1", digest)
    assert claimed["argumentsDigest"] == digest
    assert hub.get_client_action(session_id, "call_1")["executedAt"] == claimed["executedAt"]
    with pytest.raises(AlreadyExecutedError) as again:
        hub.claim_execution(session_id, "call_1", digest)
    refused(again.value, AlreadyExecutedError, "already_executed")


def test_of_eight_async_claimers_at_once_one_may_run(connect, people):
    session_id = unique("claim-race")

    async def coroutine():
        async with connect() as client:
            await client.create_session("claims", session_id)
            await client.open_client_action(session_id, "call_race", "issue_refund", REFUND)
            await asyncio.to_thread(people.decide, session_id, "call_race", "approve")
            claims = [client.claim_execution(session_id, "call_race", arguments_digest(REFUND)) for _ in range(8)]
            return await asyncio.gather(*claims, return_exceptions=True)

    answers = run(coroutine())
    assert len([answer for answer in answers if isinstance(answer, dict)]) == 1
    assert all(isinstance(answer, AlreadyExecutedError) for answer in answers if not isinstance(answer, dict))


# The Agents SDK bridge ---------------------------------------------------------------------


def test_an_approved_call_is_claimed_and_runs_once(connect):
    session_id, shop, seen = unique("claimed"), Shop(), []

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            await run_with_approvals(
                shop.agent,
                "Refund",
                session=HistoryHubSession(session_id, client),
                on_approval_request=person(people, session_id, "approve", seen, arguments=EDITED),
            )
            return await client.get_client_action(session_id, "call_refund")

    action = run(coroutine())
    assert shop.refunds == [(1234, 20.0)]
    assert action["executedAt"] is not None
    assert action["approvedArgumentsDigest"] == arguments_digest(EDITED)


async def parked_and_approved(client, people, shop, session_id):
    """Run until the refund waits, keep the parked run as it was, approve the refund: the parked run."""
    await run_with_approvals(shop.agent, "Refund", session=HistoryHubSession(session_id, client), wait=0)
    [listed] = (await client.list_runs(session_id=session_id))["items"]
    parked = await client.get_run(session_id, listed["runId"])
    await people.decide(session_id, "call_refund", "approve")
    return parked


async def park_again(client, parked, run_id=None, state=None):
    await client.park_run(
        parked["sessionId"],
        run_id or parked["runId"],
        agent=parked["agent"],
        state=state or parked["state"],
        call_ids=parked["callIds"],
    )


def test_an_approval_is_never_applied_to_another_call_with_the_same_call_id(connect):
    """A run of another conversation whose call reuses the call id gets the first one's approval: refused."""
    session_id, elsewhere = unique("approved-here"), unique("elsewhere")
    shop = Shop(
        [function_call("issue_refund", REFUND, call_id="call_refund")],
        [function_call("issue_refund", REFUND | {"amount": 2500}, call_id="call_refund")],
        [assistant_message("All done.", item_id="msg_1")],
    )

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            parked = await parked_and_approved(client, people, shop, session_id)
            await run_with_approvals(shop.agent, "Refund", session=HistoryHubSession(elsewhere, client), wait=0)
            [other] = (await client.list_runs(session_id=elsewhere))["items"]
            # The approved run's parked state becomes the other conversation's, whose call asks for 2500.
            await park_again(client, parked, state=(await client.get_run(elsewhere, other["runId"]))["state"])
            resumed = await resume_decided_runs(client, [shop.agent])
            return resumed, await client.get_client_action(session_id, "call_refund")

    [resumed], action = run(coroutine())
    assert resumed.error is None
    assert shop.refunds == []
    assert shop.tool_output() == MISMATCH
    assert action["executedAt"] is None


def test_a_run_resumed_twice_runs_its_tool_once(connect):
    session_id, shop = unique("twice"), Shop(*ONE_CALL_THEN_ANSWERS)

    async def coroutine():
        async with connect() as client, connect(deciding=True) as people:
            parked = await parked_and_approved(client, people, shop, session_id)
            first = await resume_decided_runs(client, [shop.agent])
            # A stale copy of the parked run comes back (a resumer that stopped before forgetting it).
            await park_again(client, parked)
            second = await resume_decided_runs(client, [shop.agent])
            return first + second

    resumed = run(coroutine())
    assert [run.error for run in resumed] == [None, None]
    assert shop.refunds == [(1234, 25.0)]
    assert shop.tool_output().startswith("HistoryHub refused to run this call again: it ran already")


def test_two_resumers_racing_with_copies_of_one_run_run_its_tool_once(connect):
    session_id, shop = unique("racing"), Shop(*ONE_CALL_THEN_ANSWERS)

    async def coroutine():
        async with connect() as first, connect() as second, connect(deciding=True) as people:
            parked = await parked_and_approved(first, people, shop, session_id)
            # Two parked runs of the same state: the run claims cannot settle which one runs the tool.
            await park_again(first, parked, run_id=unique("copy"))
            return await asyncio.gather(
                resume_decided_runs(first, [shop.agent]), resume_decided_runs(second, [shop.agent])
            )

    one, other = run(coroutine())
    assert [run.error for run in one + other] == [None, None]
    assert shop.refunds == [(1234, 25.0)]

"""The client-action endpoints (docs/api.md, "Client actions"): open, list, read and wait, supply a result, decide,
claim the execution, read the receipt. Parse the request, call the domain, return what it returns.

Every answer is a ``ClientActionOut``, which shows the action's policy and votes (``approvals.schemas``), so the
endpoints live here, above history, which opens and settles the actions, and beside the rules of deciding
(``deciding``), reading with votes (``reading``) and receipts (``receipts``). They are the history API's as the
contract groups them (the tag ``history``), and ``historyhub.api`` adds this router right after history's, so their
order in the document, and in routing, is the one the contract has always had.
"""

from django.http import HttpResponse
from ninja import Query, Status

from historyhub import live
from historyhub.apikeys.auth import ApiKeyAuth, KeyedRequest, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.approvals import deciding, reading, receipts, votes
from historyhub.approvals.deciders import Decider
from historyhub.approvals.schemas import ClientActionOut, ClientActionPage, DecisionIn
from historyhub.history import client_actions, waiting
from historyhub.history.api import CallId  # history.api registers the "anyid" converter these paths use
from historyhub.history.models import ClientAction
from historyhub.history.schemas import ClientActionIn, ClientActionQuery, ExecutionIn, ExecutionOut, ResultIn, WaitQuery
from historyhub.lib import paging
from historyhub.lib.endpoints import SessionId, errors, page_of
from historyhub.lib.errors import NotFound, Restarting, TooManyWaits
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["history"])


@router.post(
    "/sessions/{sessionId}/client-actions",
    response={201: ClientActionOut, 200: ClientActionOut, **errors(403, 404, 409, 413)},
)
def open_client_action(request: KeyedRequest, key: SessionId, body: ClientActionIn) -> Status[ClientAction]:
    """Open a waiting action (201); the same callId and content again returns it (200)."""
    action, created = client_actions.open_action(
        key,
        call_id=body.callId,
        name=body.name,
        arguments=body.arguments,
        description=body.description,
        expires_at=body.expiresAt,
        allowed_responses=body.allowedResponses,
        response_schema=body.responseSchema,
        by_key=request.auth,
    )
    return Status(201 if created else 200, action)


@router.get("/client-actions", response={200: ClientActionPage, **errors()})
def list_client_actions(request: KeyedRequest, query: Query[ClientActionQuery]) -> paging.Paged:
    """Client actions across sessions, oldest first."""
    page = page_of(
        reading.listing(request.auth.project_id, status=query.status, agent=query.agent, session_id=query.sessionId),
        query,
    )
    # Their votes judged together: a page costs the queries of one action.
    votes.judge(page.items)
    return page


# Call ids may hold "/" (sent as %2F, which servers decode before routing): the ids are matched as paths,
# the routes ending in /result, /decision, /execution and /receipt come first, and a GET of one of the first three
# reads the action whose id ends that way (of /receipt, when the session has no action the rest names).
# docs/api.md, "Ids in paths".


@router.post(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/result",
    response={200: ClientActionOut, **errors(403, 404, 409, 413)},
)
def supply_client_action_result(request: KeyedRequest, key: SessionId, call_id: CallId, body: ResultIn) -> ClientAction:
    """The client application's result for the action."""
    action: ClientAction
    action, _ = client_actions.supply_result(
        key, call_id, output=body.output, is_error=body.isError, resolved_by=resolved_by(request)
    )
    return action


@router.get(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/result",
    response={200: ClientActionOut, **errors(404, 429, 503)},
)
async def get_client_action_ending_in_result(
    request: KeyedRequest, key: SessionId, call_id: CallId, query: Query[WaitQuery]
) -> ClientAction:
    """The action whose callId is {callId}/result: a GET here is a read, not the result endpoint."""
    return await read_client_action(request, key, f"{call_id}/result", query.wait)


@router.post(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/decision",
    response={200: ClientActionOut, **errors(403, 404, 409, 413)},
    auth=ApiKeyAuth(Scope.DECIDE),
)
def decide_client_action(request: KeyedRequest, key: SessionId, call_id: CallId, body: DecisionIn) -> ClientAction:
    """Approve (optionally with edited arguments), reject, respond (an answer in place of the tool) or dismiss the
    action, as its allowedResponses permit: a key with the decide scope that did not open it."""
    action, _ = deciding.decide(
        key,
        call_id,
        decision=body.decision,
        comment=body.comment,
        arguments=body.arguments,
        response=body.response,
        decider=Decider.key(request.auth),
    )
    return action


@router.get(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/decision",
    response={200: ClientActionOut, **errors(404, 429, 503)},
)
async def get_client_action_ending_in_decision(
    request: KeyedRequest, key: SessionId, call_id: CallId, query: Query[WaitQuery]
) -> ClientAction:
    """The action whose callId is {callId}/decision: a GET here is a read, not the decision endpoint."""
    return await read_client_action(request, key, f"{call_id}/decision", query.wait)


@router.post(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/execution",
    response={200: ExecutionOut, **errors(403, 404, 409, 413)},
)
def claim_client_action_execution(
    request: KeyedRequest, key: SessionId, call_id: CallId, body: ExecutionIn
) -> dict[str, object]:
    """Claim the one execution of an approved action, with the digest of the arguments about to run: 200 the first
    time; 409 not_approved, arguments_mismatch (recorded and announced; nothing may run) or already_executed."""
    executed_at, digest = client_actions.claim_execution(
        key, call_id, arguments_digest=body.argumentsDigest, claimer=resolved_by(request)
    )
    return {"executedAt": executed_at, "argumentsDigest": digest}


@router.get(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/execution",
    response={200: ClientActionOut, **errors(404, 429, 503)},
)
async def get_client_action_ending_in_execution(
    request: KeyedRequest, key: SessionId, call_id: CallId, query: Query[WaitQuery]
) -> ClientAction:
    """The action whose callId is {callId}/execution: a GET here is a read, not the execution endpoint."""
    return await read_client_action(request, key, f"{call_id}/execution", query.wait)


RECEIPT_ANSWER = {
    "responses": {
        200: {
            "description": "The receipt: a compact JWS (EdDSA, Ed25519; its kid names a key of "
            "/.well-known/jwks.json). The action whose own callId ends in /receipt, when the session holds no "
            "action {callId}: that action.",
            "content": {
                receipts.MEDIA_TYPE: {"schema": {"type": "string", "pattern": r"^[\w-]+\.[\w-]+\.[\w-]+$"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/ClientActionOut"}},
            },
        }
    }
}


@router.get(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/receipt",
    response={200: ClientActionOut, **errors(404, 409, 429, 503)},
    openapi_extra=RECEIPT_ANSWER,
)
async def get_client_action_receipt(
    request: KeyedRequest, key: SessionId, call_id: CallId, query: Query[WaitQuery]
) -> HttpResponse | ClientAction:
    """The signed receipt of an action that no longer waits (409 while it does): who decided what about which
    arguments, when, and whether it was executed (docs/receipts.md)."""
    try:
        receipt = await live.read(receipts.issue, key, call_id)
    except NotFound:
        # A GET of a path ending in /receipt reads the action whose own id ends that way when there is no other
        # (docs/api.md, "Ids in paths"); wait applies to that read only.
        own = f"{call_id}/receipt"
        if not await live.read(ClientAction.objects.filter(session_id=key, call_id=own).exists):
            raise
        return await read_client_action(request, key, own, query.wait)
    return HttpResponse(receipt, content_type=receipts.MEDIA_TYPE)


@router.get(
    "/sessions/{sessionId}/client-actions/{anyid:callId}", response={200: ClientActionOut, **errors(404, 429, 503)}
)
async def get_client_action(
    request: KeyedRequest, key: SessionId, call_id: CallId, query: Query[WaitQuery]
) -> ClientAction:
    """One action; with wait, answered as soon as it leaves waiting (or expires) or after that many seconds.

    A wait holds no thread while it waits (docs/live-updates.md). When the
    server restarts meanwhile it answers 503 with Retry-After: ask again.
    """
    return await read_client_action(request, key, call_id, query.wait)


async def read_client_action(request: KeyedRequest, key: str, call_id: str, wait: float | None) -> ClientAction:
    if not wait:
        return await live.read(reading.get, key, call_id)
    try:
        action: ClientAction = await waiting.wait_for_resolution(
            key, call_id, wait, waiter=("key", request.auth.pk), read=reading.get
        )
        return action
    except live.Closed:
        raise Restarting() from None
    except live.TooMany as too_many:
        raise TooManyWaits(too_many.limit) from None

"""The history endpoints (docs/api.md): parse the request, call the domain, return what it returns.

The schemas (``historyhub.history.schemas``) turn the domain's objects into the wire's shapes.
"""

from typing import Annotated

from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from django.urls import register_converter
from django.utils import timezone
from ninja import Path, Query, Status
from pydantic.alias_generators import to_snake

from historyhub import live, streaming
from historyhub.apikeys.auth import ApiKeyAuth, resolved_by
from historyhub.apikeys.models import Scope
from historyhub.approvals import votes
from historyhub.approvals.deciders import Decider
from historyhub.history import (
    chat_format,
    client_actions,
    history_pages,
    item_log,
    paging,
    sessions,
    transactions,
    validation,
    waiting,
    wire_entries,
)
from historyhub.history.errors import Restarting, TooManyWaits
from historyhub.history.schemas import (
    SESSION_ID_PATTERN,
    WITHOUT_NUL,
    Appended,
    ClientActionIn,
    ClientActionOut,
    ClientActionPage,
    ClientActionQuery,
    Compacted,
    CompactionIn,
    DecisionIn,
    EntryList,
    Error,
    ExecutionIn,
    ExecutionOut,
    HistoryPage,
    InjectionEntry,
    InjectionIn,
    ItemCount,
    ItemList,
    ItemsAppend,
    ItemsQuery,
    ItemsReplace,
    MessageList,
    MessagesIn,
    Pagination,
    Popped,
    ResponseLookup,
    ResultIn,
    SessionIn,
    SessionPage,
    SessionPatch,
    SessionQuery,
    SessionSnapshot,
    TransactionIn,
    TransactionOut,
    WaitQuery,
)
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["history"])


class AnyId:
    """A call or message id in a path: any characters, "/" and line breaks included.

    Django's own ``path`` converter is ``.+``, which stops at a line break, so
    an id holding one could be stored but not addressed. The id is checked by
    the endpoint (``CallId``, ``MessageId``), which answers 400 for one it refuses.
    """

    regex = r"[\s\S]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(AnyId, "anyid")

# Large enough that a long history is not written an item at a time.
STREAM_PIECE = 64 * 1024

# The examples are the walk-through's ids (docs/api.md), so "Try it out" names what the body examples made.
SessionId = Annotated[str, Path(alias="sessionId", example="support-42", pattern=SESSION_ID_PATTERN)]
CallId = Annotated[
    str, Path(alias="callId", example="call_refund", max_length=validation.MAX_ID_LENGTH, pattern=WITHOUT_NUL)
]
MessageId = Annotated[
    str, Path(alias="messageId", example="msg_1", max_length=validation.MAX_ID_LENGTH, pattern=WITHOUT_NUL)
]


def errors(*statuses):
    """The error responses an endpoint declares; every one is an Error body."""
    return dict.fromkeys((400, 401, *statuses), Error)


def ok(result):
    """A 200 of a named result: ninja would read a bare 2-tuple as (status, body)."""
    return Status(200, result)


def page_of(queryset, query):
    """One page of a queryset, with its exact total."""
    return paging.page_of(queryset, query.page, query.pageSize)


# Sessions ----------------------------------------------------------------------


@router.post("/sessions", response={201: SessionSnapshot, 200: SessionSnapshot, **errors(403, 404, 409, 413)})
def create_session(request, body: SessionIn):
    """Create a session; the same sessionId and agent again returns the existing one (200)."""
    session, created = sessions.ensure(
        agent=body.agent,
        project=request.auth.project_id,
        session_id=body.sessionId,
        name=body.name,
        metadata=body.metadata,
        parent_session_id=body.parentSessionId,
        parent_call_id=body.parentCallId,
    )
    return Status(201 if created else 200, sessions.snapshot(session))


@router.get("/sessions", response={200: SessionPage, **errors()})
def list_sessions(request, query: Query[SessionQuery]):
    """Sessions, most recently updated first."""
    now, project = timezone.now(), request.auth.project_id
    filters = {"agent": query.agent, "status": query.status, "run_status": query.runStatus, "q": query.q, "now": now}

    def rows(first):
        return sessions.with_snapshot_relations(sessions.search(project, **filters, first=first))

    def count(up_to):
        return sessions.count(project, **filters, up_to=up_to)

    paged = paging.page_of_parts(rows, count, query.page, query.pageSize)
    paged.items = [sessions.snapshot(session, now) for session in paged.items]
    return paged


@router.get("/sessions/{sessionId}", response={200: SessionSnapshot, **errors(404)})
def get_session(request, key: SessionId):
    return sessions.snapshot(sessions.get(key))


@router.patch("/sessions/{sessionId}", response={200: SessionSnapshot, **errors(403, 404, 413)})
def update_session(request, key: SessionId, body: SessionPatch):
    """Change only the fields sent."""
    changes = {to_snake(name): value for name, value in body.model_dump(exclude_unset=True).items()}
    return sessions.snapshot(sessions.update(key, **changes))


@router.delete("/sessions/{sessionId}", response={204: None, **errors(403, 404)})
def delete_session(request, key: SessionId):
    """Delete the session and everything it owns."""
    sessions.delete(key, actor=resolved_by(request))
    return Status(204, None)


@router.get("/sessions/{sessionId}/history", response={200: HistoryPage, **errors(404)})
def get_history(request, key: SessionId, query: Query[Pagination]):
    """The timeline, newest page first, chronological within a page."""
    return history_pages.history(key, query.page, query.pageSize)


# The agent SDK session protocol --------------------------------------------------


@router.get("/sessions/{sessionId}/items", response={200: ItemList, **errors()})
def list_items(request, key: SessionId, query: Query[ItemsQuery]):
    """The logical history verbatim, streamed from the stored texts without parsing them."""
    texts = item_log.iter_item_texts(key, limit=query.limit)
    pieces = _json_items(texts)
    if isinstance(request, ASGIRequest):
        # A history of 250,000 items is sent as it is read, not gathered first.
        pieces = streaming.one_at_a_time(pieces)
    return StreamingHttpResponse(pieces, content_type="application/json")


def _json_items(texts):
    """'{"items":[…]}' around the stored texts, sent in pieces of about STREAM_PIECE characters."""
    piece, size = ['{"items":['], 0
    for index, text in enumerate(texts):
        piece.append(text if index == 0 else "," + text)
        size += len(text)
        if size >= STREAM_PIECE:
            yield "".join(piece)
            piece, size = [], 0
    piece.append("]}")
    yield "".join(piece)


@router.post("/sessions/{sessionId}/items", response={200: Appended, **errors(403, 413)})
def append_items(request, key: SessionId, body: ItemsAppend):
    """Append every item; with skipExistingIds, those whose id the logical history does not hold yet."""
    appended = item_log.append(
        key, body.items, agent=body.agent, skip_existing_ids=body.skipExistingIds, by_key=request.auth
    )
    return ok(appended)


@router.put("/sessions/{sessionId}/items", response={200: ItemCount, **errors(403, 413)})
def replace_items(request, key: SessionId, body: ItemsReplace):
    """The logical history becomes exactly these items, atomically."""
    return {"itemCount": item_log.replace(key, body.items, agent=body.agent, by_key=request.auth)}


@router.delete("/sessions/{sessionId}/items", response={204: None, **errors(403)})
def clear_items(request, key: SessionId):
    """Forget every item, the timeline, client actions and operations; the session stays."""
    item_log.clear(key)
    return Status(204, None)


@router.post("/sessions/{sessionId}/items/pop", response={200: Popped, **errors(403)})
def pop_item(request, key: SessionId):
    """Remove and return the newest item, or null."""
    return {"item": item_log.pop(key)}


@router.post("/sessions/{sessionId}/compaction", response={200: Compacted, **errors(403, 413)})
def compact_items(request, key: SessionId, body: CompactionIn):
    """Archive the logical history and continue from these items."""
    return ok(item_log.compact(key, body.items, by_key=request.auth))


@router.post("/sessions/{sessionId}/transactions", response={200: TransactionOut, **errors(403, 409, 413)})
def apply_transaction(request, key: SessionId, body: TransactionIn):
    """Apply an operation once; a repeat with an equal transaction is not applied again."""
    applied = transactions.apply(key, body.operationId, body.transaction.model_dump(), by_key=request.auth)
    return {"applied": applied}


@router.get("/sessions/{sessionId}/responses/{anyid:messageId}", response={200: ResponseLookup, **errors()})
def find_response(request, key: SessionId, message_id: MessageId):
    """The turn a user message opened and its response items."""
    return wire_entries.find_response(key, message_id)


# Wire entries ------------------------------------------------------------------


@router.get("/sessions/{sessionId}/entries", response={200: EntryList, **errors()})
def list_entries(request, key: SessionId):
    """Turns and injections, in order."""
    return {"entries": wire_entries.wire_entries(key)}


@router.post("/sessions/{sessionId}/injections", response={201: InjectionEntry, **errors(403, 413)})
def create_injection(request, key: SessionId, body: InjectionIn):
    """Store an assistant message that belongs to no turn."""
    return Status(201, wire_entries.inject(key, body.content, entry_id=body.id))


# Chat-format history ---------------------------------------------------------------


@router.get("/sessions/{sessionId}/messages", response={200: MessageList, **errors()}, exclude_unset=True)
def get_messages(request, key: SessionId):
    """The logical history as Chat Completions messages; absent fields stay absent."""
    return {"messages": chat_format.export(key)}


@router.put("/sessions/{sessionId}/messages", response={200: ItemCount, **errors(403, 413)})
def replace_messages(request, key: SessionId, body: MessagesIn):
    """Replace the logical history with chat messages, all or nothing."""
    return {"itemCount": chat_format.import_messages(key, body.messages, agent=body.agent, by_key=request.auth)}


# Client actions ------------------------------------------------------------------


@router.post(
    "/sessions/{sessionId}/client-actions",
    response={201: ClientActionOut, 200: ClientActionOut, **errors(403, 404, 409, 413)},
)
def open_client_action(request, key: SessionId, body: ClientActionIn):
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
def list_client_actions(request, query: Query[ClientActionQuery]):
    """Client actions across sessions, oldest first."""
    page = page_of(
        client_actions.listing(
            request.auth.project_id, status=query.status, agent=query.agent, session_id=query.sessionId
        ),
        query,
    )
    # Their votes judged together: a page costs the queries of one action.
    votes.judge(page.items)
    return page


# Call ids may hold "/" (sent as %2F, which servers decode before routing): the ids are matched as paths,
# the routes ending in /result, /decision and /execution come first, and a GET of one of them reads the action whose id
# ends that way. docs/api.md, "Ids in paths".


@router.post(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/result",
    response={200: ClientActionOut, **errors(403, 404, 409, 413)},
)
def supply_client_action_result(request, key: SessionId, call_id: CallId, body: ResultIn):
    """The client application's result for the action."""
    action, _ = client_actions.supply_result(
        key, call_id, output=body.output, is_error=body.isError, resolved_by=resolved_by(request)
    )
    return action


@router.get(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/result",
    response={200: ClientActionOut, **errors(404, 429, 503)},
)
async def get_client_action_ending_in_result(request, key: SessionId, call_id: CallId, query: Query[WaitQuery]):
    """The action whose callId is {callId}/result: a GET here is a read, not the result endpoint."""
    return await read_client_action(request, key, f"{call_id}/result", query.wait)


@router.post(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/decision",
    response={200: ClientActionOut, **errors(403, 404, 409, 413)},
    auth=ApiKeyAuth(Scope.DECIDE),
)
def decide_client_action(request, key: SessionId, call_id: CallId, body: DecisionIn):
    """Approve (optionally with edited arguments), reject, respond (an answer in place of the tool) or dismiss the
    action, as its allowedResponses permit: a key with the decide scope that did not open it."""
    action, _ = client_actions.decide(
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
async def get_client_action_ending_in_decision(request, key: SessionId, call_id: CallId, query: Query[WaitQuery]):
    """The action whose callId is {callId}/decision: a GET here is a read, not the decision endpoint."""
    return await read_client_action(request, key, f"{call_id}/decision", query.wait)


@router.post(
    "/sessions/{sessionId}/client-actions/{anyid:callId}/execution",
    response={200: ExecutionOut, **errors(403, 404, 409, 413)},
)
def claim_client_action_execution(request, key: SessionId, call_id: CallId, body: ExecutionIn):
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
async def get_client_action_ending_in_execution(request, key: SessionId, call_id: CallId, query: Query[WaitQuery]):
    """The action whose callId is {callId}/execution: a GET here is a read, not the execution endpoint."""
    return await read_client_action(request, key, f"{call_id}/execution", query.wait)


@router.get(
    "/sessions/{sessionId}/client-actions/{anyid:callId}", response={200: ClientActionOut, **errors(404, 429, 503)}
)
async def get_client_action(request, key: SessionId, call_id: CallId, query: Query[WaitQuery]):
    """One action; with wait, answered as soon as it leaves waiting (or expires) or after that many seconds.

    A wait holds no thread while it waits (docs/live-updates.md). When the
    server restarts meanwhile it answers 503 with Retry-After: ask again.
    """
    return await read_client_action(request, key, call_id, query.wait)


async def read_client_action(request, key, call_id, wait):
    if not wait:
        return await live.read(client_actions.get, key, call_id)
    try:
        return await waiting.wait_for_resolution(key, call_id, wait, waiter=("key", request.auth.pk))
    except live.Closed:
        raise Restarting() from None
    except live.TooMany as too_many:
        raise TooManyWaits(too_many.limit) from None

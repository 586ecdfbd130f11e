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

from historyhub import streaming
from historyhub.apikeys.auth import resolved_by
from historyhub.history import (
    chat_format,
    history_pages,
    item_log,
    sessions,
    transactions,
    wire_entries,
)
from historyhub.history.schemas import (
    Appended,
    Compacted,
    CompactionIn,
    EntryList,
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
    Popped,
    ResponseLookup,
    SessionIn,
    SessionPage,
    SessionPatch,
    SessionQuery,
    SessionSnapshot,
    TransactionIn,
    TransactionOut,
)
from historyhub.lib import paging, validation
from historyhub.lib.endpoints import SessionId, errors, ok
from historyhub.lib.schemas import WITHOUT_NUL, Pagination
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

CallId = Annotated[
    str, Path(alias="callId", example="call_refund", max_length=validation.MAX_ID_LENGTH, pattern=WITHOUT_NUL)
]
MessageId = Annotated[
    str, Path(alias="messageId", example="msg_1", max_length=validation.MAX_ID_LENGTH, pattern=WITHOUT_NUL)
]


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

"""The request and response bodies of API.md, field for field.

Field names are the wire's camelCase. Items, metadata, arguments and outputs
are agents' own JSON and stay free-form. Where the domain owns a check and its
exact message (pagination, chat messages, item objects), the field accepts any
value so the raw input reaches the domain, and ``WithJsonSchema`` documents
what a well-formed request looks like.

Models that keep fields they do not declare (history items, transactions) are
pydantic models: ninja's Schema reads declared fields only and drops the rest.
"""

from typing import Annotated, Any, Literal

from ninja import Field, Schema
from pydantic import BaseModel, ConfigDict, StrictBool, WithJsonSchema

from historyhub.history.client_actions import DECISIONS
from historyhub.history.models import ClientActionStatus, RunStatus, SessionStatus
from historyhub.history.validation import MAX_ID_LENGTH, SESSION_ID

SESSION_ID_PATTERN = f"^{SESSION_ID.pattern}$"

# Filters and path ids meet text columns in queries, and PostgreSQL refuses NUL
# there. Strings in bodies are checked by the domain (validation.text).
WITHOUT_NUL = r"^[^\x00]*$"

SessionId = Annotated[str, Field(pattern=SESSION_ID_PATTERN, examples=["support-42"])]
Identifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]
Filter = Annotated[str, Field(pattern=WITHOUT_NUL)]
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"}, examples=["2026-09-28T12:00:04Z"])]
METADATA_SCHEMA = {
    "type": "object",
    "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
    "description": "Values are strings, numbers, booleans or null.",
}
Metadata = Annotated[dict[str, Any], WithJsonSchema(METADATA_SCHEMA)]
# The domain checks metadata values, so its message reaches the caller.
MetadataIn = Annotated[
    Any, WithJsonSchema({**METADATA_SCHEMA, "type": ["object", "null"], "description": "null means {}."})
]
JsonObject = dict[str, Any]
Items = Annotated[
    list[Any],
    WithJsonSchema({"type": "array", "items": {"type": "object"}, "description": "Items, stored verbatim."}),
]
# validation.pagination reads a page number of at most nine digits.
PageNumber = Annotated[
    str | None, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": 999_999_999, "default": 1})
]
PageSize = Annotated[str | None, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": 100, "default": 50})]
CreatingAgent = Annotated[
    Identifier | None, Field(description='The agent of a session this call creates; else "default".')
]


class ErrorDetail(Schema):
    code: str = Field(examples=["invalid_input"])
    message: str


class Error(Schema):
    error: ErrorDetail


class Page(Schema):
    page: int
    pageSize: int
    total: int
    hasMore: bool


# Sessions ----------------------------------------------------------------------


class SessionIn(Schema):
    model_config = ConfigDict(
        json_schema_extra={
            "dependentRequired": {"parentSessionId": ["parentCallId"], "parentCallId": ["parentSessionId"]},
        }
    )

    sessionId: SessionId | None = Field(None, description="Generated (ses_…) when absent.")
    agent: Identifier
    name: str | None = None
    metadata: MetadataIn = None
    parentSessionId: SessionId = Field(None, description="Makes this a child session; needs parentCallId.")
    parentCallId: Identifier = Field(None, description="The parent's call that delegated to this session.")


class SessionPatch(Schema):
    """Only the fields sent are changed."""

    name: str = None
    metadata: MetadataIn = None
    status: SessionStatus = None
    runStatus: RunStatus | None = None


class SessionFilters(Schema):
    agent: Filter | None = None
    status: SessionStatus | None = None
    runStatus: RunStatus | None = None
    q: Filter | None = Field(None, description="Matches session id, name, agent, metadata values and message text.")
    page: PageNumber = None
    pageSize: PageSize = None


class PendingClientAction(Schema):
    callId: str
    name: str
    arguments: JsonObject


class Lineage(Schema):
    origin: Literal["delegated"]
    parentAgent: str
    parentSessionId: str
    parentCallId: str


class SessionSnapshot(Schema):
    sessionId: str
    agent: str
    name: str | None
    status: SessionStatus
    metadata: Metadata
    createdAt: Timestamp
    updatedAt: Timestamp
    runStatus: RunStatus | None
    pendingClientActions: list[PendingClientAction]
    lineage: Lineage | None
    usage: dict[str, int] | None = Field(
        description="Sums of inputTokens, outputTokens, reasoningTokens, cacheReadTokens, cacheWriteTokens."
    )
    itemCount: int


class SessionPage(Page):
    items: list[SessionSnapshot]


class HistoryQuery(Schema):
    page: PageNumber = None
    pageSize: PageSize = None


class HistoryItem(BaseModel):
    """A timeline item; its other fields depend on its type (API.md "History items")."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(examples=["message:1"])
    type: Literal["message", "action", "client_action", "subagent", "skill", "evaluation", "session_completed"]
    createdAt: Timestamp


class HistoryPage(SessionSnapshot, Page):
    items: list[HistoryItem]


# The agent SDK session protocol -------------------------------------------------


class ItemsQuery(Schema):
    limit: int | None = Field(None, ge=0, description="Only the newest N items, still chronological.")


class ItemList(Schema):
    items: list[JsonObject]


class ItemsAppend(Schema):
    items: Items
    agent: CreatingAgent = None
    skipExistingIds: StrictBool = Field(
        False, description="Skip items whose id the logical history already holds (ids as identities)."
    )


class Appended(Schema):
    inserted: list[bool]
    itemCount: int


class ItemsReplace(Schema):
    items: Items
    agent: CreatingAgent = None


class ItemCount(Schema):
    itemCount: int


class Popped(Schema):
    item: JsonObject | None


class CompactionIn(Schema):
    items: Annotated[
        list[Any],
        WithJsonSchema(
            {
                "type": "array",
                "minItems": 1,
                "prefixItems": [
                    {"type": "object", "required": ["type"], "properties": {"type": {"const": "compaction"}}}
                ],
                "items": {"type": "object"},
                "description": "A compaction item, then the items kept after it.",
            }
        ),
    ]


class Compacted(Schema):
    changed: bool = Field(description="False when the items already were the logical history.")
    itemCount: int


class AppendItems(BaseModel):
    # Extra fields are kept: a transaction is compared with its repeat as sent.
    model_config = ConfigDict(extra="allow")

    type: Literal["append_items"]
    items: Items


class ReplaceSuffix(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: Literal["replace_suffix"]
    expectedSuffix: Items
    replacement: Items


class TransactionIn(Schema):
    operationId: Identifier
    transaction: Annotated[AppendItems | ReplaceSuffix, Field(discriminator="type")]


class TransactionOut(Schema):
    applied: bool


class TurnEntry(Schema):
    kind: Literal["turn"]
    id: str
    sessionId: str
    timestamp: int = Field(description="Epoch milliseconds.")
    userIntent: str
    assistantMessage: str


class InjectionEntry(Schema):
    kind: Literal["injection"]
    id: str
    sessionId: str
    timestamp: int = Field(description="Epoch milliseconds.")
    content: str


class ResponseHit(Schema):
    result: Literal["hit"]
    entry: TurnEntry
    items: list[JsonObject]


class ResponseMiss(Schema):
    result: Literal["miss"]


class ResponseKindMismatch(Schema):
    result: Literal["kind_mismatch"]
    kind: str = Field(description='"injection", else the item\'s type.')


ResponseLookup = Annotated[ResponseHit | ResponseMiss | ResponseKindMismatch, Field(discriminator="result")]


# Wire entries ------------------------------------------------------------------


class EntryList(Schema):
    entries: list[Annotated[TurnEntry | InjectionEntry, Field(discriminator="kind")]]


class InjectionIn(Schema):
    id: Identifier | None = None
    content: str


# Chat-format history -------------------------------------------------------------


class AgentMessage(Schema):
    """A Chat Completions message. Fields copied from stored chat items are kept as stored."""

    role: Literal["user", "assistant", "tool"]
    content: Any
    tool_calls: Any = Field(None, json_schema_extra={"type": "array", "items": {"type": "object"}})
    tool_call_id: Any = Field(None, json_schema_extra={"type": "string"})
    name: Any = Field(None, json_schema_extra={"type": "string"})


class MessageList(Schema):
    messages: list[AgentMessage]


class MessagesIn(Schema):
    messages: Annotated[
        Any,
        WithJsonSchema(
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["role"],
                    "properties": {
                        "role": {"enum": ["system", "user", "assistant", "tool"]},
                    },
                },
                "description": "AgentMessages; a system message only at index 0, where it is dropped.",
            }
        ),
    ]
    agent: CreatingAgent = None


# Client actions ------------------------------------------------------------------


class ClientActionIn(Schema):
    callId: Identifier
    name: Identifier
    arguments: JsonObject
    description: str | None = None
    expiresAt: Timestamp | None = Field(None, description="ISO 8601 with a timezone.")


class ClientActionOut(Schema):
    sessionId: str
    callId: str
    name: str
    arguments: JsonObject
    description: str
    status: ClientActionStatus
    createdAt: Timestamp
    expiresAt: Timestamp | None
    resolvedAt: Timestamp | None
    resolvedBy: str | None = Field(description='The dashboard user, or "api key: <name>".')
    decision: Literal[DECISIONS] | None
    comment: str | None
    approvedArguments: JsonObject | None
    output: Any
    isError: bool | None


class ClientActionFilters(Schema):
    status: ClientActionStatus | None = None
    agent: Filter | None = None
    sessionId: Filter | None = None
    page: PageNumber = None
    pageSize: PageSize = None


class ClientActionPage(Page):
    items: list[ClientActionOut]


class WaitQuery(Schema):
    wait: float | None = Field(
        None,
        ge=0,
        le=60,
        allow_inf_nan=False,
        description="Seconds to wait for the action to leave waiting.",
    )


class ResultIn(Schema):
    output: Any
    isError: StrictBool = False


class DecisionIn(Schema):
    decision: Literal[DECISIONS]
    comment: str | None = None
    arguments: JsonObject | None = Field(None, description="Edited arguments, on approve.")

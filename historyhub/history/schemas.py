"""The wire: the request and response bodies of the API, field for field (docs/api.md).

Field names are the wire's camelCase, here and nowhere else. Answers are read
from the domain's Python objects (``Out``): a camelCase field reads the
snake_case attribute of the same name, and timestamps are written in UTC with
a ``Z``. Items, metadata, arguments and outputs are agents' own JSON and stay
free-form. Where the contract fixes the domain's message for a malformed value
(item objects, chat messages, metadata values), the field accepts any value so
the raw input reaches the domain, and ``WithJsonSchema`` documents what a
well-formed request looks like.

Models that keep fields they do not declare (history items, transactions) are
pydantic models: ninja's Schema reads declared fields only and drops the rest.
"""

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from django.conf import settings
from ninja import Field, Schema
from pydantic import BaseModel, ConfigDict, StrictBool, WithJsonSchema

from historyhub.history import response_schemas
from historyhub.history.models import DEFAULT_ALLOWED, ClientActionStatus, Decision, RunStatus, SessionStatus
from historyhub.lib.schemas import (
    COLUMN_TEXT_SCHEMA,
    SESSION_ID_PATTERN,
    Filter,
    Identifier,
    Out,
    Page,
    Pagination,
    Text,
    Time,
    Timestamp,
    example,
)
from historyhub.lib.validation import MAX_ID_LENGTH, MAX_NAME_LENGTH

# The words of a vocabulary as the contract lists them: an enum of strings in the OpenAPI document, built from the
# vocabulary at run time; the type checker reads them as the strings they are.
if TYPE_CHECKING:
    AnyDecision: TypeAlias = str
else:
    AnyDecision = Literal[tuple(Decision.values)]

SessionId = Annotated[str, Field(pattern=SESSION_ID_PATTERN, examples=["support-42"])]
# An action's name: an id with no control characters (validation.action_name), documented only so the domain's
# own message answers a name that breaks it.
ActionName = Annotated[
    str,
    Field(
        min_length=1, max_length=MAX_ID_LENGTH, json_schema_extra={"pattern": r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$"}
    ),
]
# Documented only: the domain refuses a longer one with its own message (as for NUL, above).
SessionName = Annotated[str, Field(json_schema_extra={**COLUMN_TEXT_SCHEMA, "maxLength": MAX_NAME_LENGTH})]
ACTION_FIELD_LIMIT = (
    f"At most {settings.HISTORYHUB_MAX_ACTION_FIELD_BYTES:,} bytes serialised (413 payload_too_large beyond)."
)
# Not only whitespace (transactions.apply).
OperationId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ID_LENGTH,
        json_schema_extra={"pattern": r"^[^\x00]*[^\s\x00][^\x00]*$"},
    ),
]
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
# An item's id, when it is a string, is kept beside it for lookups (validation.items).
ITEM_SCHEMA = {
    "type": "object",
    "properties": {"id": {"maxLength": MAX_ID_LENGTH, **COLUMN_TEXT_SCHEMA}},
    "description": f"Stored verbatim, at most {settings.HISTORYHUB_MAX_ITEM_BYTES:,} bytes serialised.",
}
Items = Annotated[
    list[Any],
    WithJsonSchema(
        {
            "type": "array",
            "items": ITEM_SCHEMA,
            "description": f"Items, stored verbatim; at most {settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST:,} (else 413).",
        }
    ),
]
CreatingAgent = Annotated[
    Identifier | None, Field(description='The agent of a session this call creates; else "default".')
]


# Sessions ----------------------------------------------------------------------


class SessionIn(Schema):
    model_config = example(
        {
            "sessionId": "support-42",
            "agent": "support",
            "name": "Refund for order 1234",
            "metadata": {"customer": "Ingrid"},
        },
        json_schema_extra={
            "dependentRequired": {"parentSessionId": ["parentCallId"], "parentCallId": ["parentSessionId"]},
        },
    )

    sessionId: SessionId | None = Field(None, description="Generated (ses_…) when absent.")
    agent: Identifier
    name: SessionName | None = None
    metadata: MetadataIn = None
    # None stands for "not sent" on the fields below: the contract has them optional, never null.
    parentSessionId: SessionId = Field(None, description="Makes this a child session; needs parentCallId.")  # type: ignore[assignment]
    parentCallId: Identifier = Field(None, description="The parent's call that delegated to this session.")  # type: ignore[assignment]


class SessionPatch(Schema):
    """Only the fields sent are changed."""

    model_config = example(
        {"name": "Refund for order 1234 (urgent)", "metadata": {"customer": "Ingrid", "priority": "high"}}
    )

    # None stands for "not sent": the contract has these optional, never null.
    name: SessionName = None  # type: ignore[assignment]
    metadata: MetadataIn = None
    status: SessionStatus = None  # type: ignore[assignment]
    runStatus: RunStatus | None = None


class SessionQuery(Pagination):
    agent: Filter | None = None
    status: SessionStatus | None = None
    runStatus: RunStatus | None = None
    q: Filter | None = Field(None, description="Matches session id, name, agent, metadata values and message text.")


class PendingClientAction(Out):
    callId: str
    name: str
    arguments: JsonObject


class Lineage(Out):
    origin: Literal["delegated"]
    parentAgent: str
    parentSessionId: str
    parentCallId: str


class SessionSnapshot(Out):
    sessionId: str
    agent: str
    name: str | None
    status: SessionStatus
    metadata: Metadata
    createdAt: Time
    updatedAt: Time
    runStatus: RunStatus | None = Field(description="As it reads now: a wait whose actions all expired is over.")
    pendingClientActions: list[PendingClientAction]
    lineage: Lineage | None
    usage: dict[str, int] | None = Field(
        description="Sums of inputTokens, outputTokens, reasoningTokens, cacheReadTokens, cacheWriteTokens."
    )
    itemCount: int


class SessionPage(Page):
    items: list[SessionSnapshot]


class HistoryItem(BaseModel):
    """A timeline item; its other fields depend on its type (docs/api.md, "History items")."""

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
    model_config = example(
        {
            "items": [
                {"role": "user", "content": "My espresso machine arrived broken. Order 1234."},
                {"role": "assistant", "content": "I am sorry to hear that. I will ask for a refund."},
            ]
        }
    )

    items: Items
    agent: CreatingAgent = None
    skipExistingIds: StrictBool = Field(
        False, description="Skip items whose id the logical history already holds (ids as identities)."
    )


class Appended(Out):
    inserted: list[bool]
    itemCount: int


class ItemsReplace(Schema):
    model_config = example({"items": [{"role": "user", "content": "Where is my order 1234?"}]})

    items: Items
    agent: CreatingAgent = None


class ItemCount(Schema):
    itemCount: int


class Popped(Schema):
    item: JsonObject | None


class CompactionIn(Schema):
    model_config = example(
        {
            "items": [
                {"type": "compaction", "id": "cmp-1", "encrypted_content": "A refund of order 1234 was asked for."},
                {"role": "user", "content": "Is it refunded yet?"},
            ]
        }
    )

    items: Annotated[
        list[Any],
        WithJsonSchema(
            {
                "type": "array",
                "minItems": 1,
                "prefixItems": [
                    {"type": "object", "required": ["type"], "properties": {"type": {"const": "compaction"}}}
                ],
                "items": ITEM_SCHEMA,
                "description": "A compaction item, then the items kept after it.",
            }
        ),
    ]


class Compacted(Out):
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
    model_config = example(
        {
            "operationId": "op-1",
            "transaction": {"type": "append_items", "items": [{"role": "user", "content": "Thank you!"}]},
        }
    )

    operationId: OperationId
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
    model_config = example({"id": "note-1", "content": "The replacement machine shipped on Monday."})

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


CHAT_MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["role"],
    "properties": {"role": {"enum": ["system", "user", "assistant", "tool"]}},
    # A tool message answers a call: its tool_call_id names an earlier tool_calls entry.
    "if": {"properties": {"role": {"const": "tool"}}},
    "then": {"required": ["tool_call_id"], "properties": {"tool_call_id": {"type": "string"}}},
}

LATER_MESSAGE_PROPERTIES = {**CHAT_MESSAGE_SCHEMA["properties"], "role": {"enum": ["user", "assistant", "tool"]}}


class MessagesIn(Schema):
    model_config = example(
        {
            "messages": [
                {"role": "system", "content": "You help customers with refunds."},
                {"role": "user", "content": "Where is my order 1234?"},
                {"role": "assistant", "content": "It ships tomorrow."},
            ]
        }
    )

    messages: Annotated[
        Any,
        WithJsonSchema(
            {
                "type": "array",
                # A system message only first, where it is dropped.
                "prefixItems": [CHAT_MESSAGE_SCHEMA],
                "items": {**CHAT_MESSAGE_SCHEMA, "properties": LATER_MESSAGE_PROPERTIES},
                "description": (
                    "AgentMessages; a system message only at index 0, where it is dropped; a tool message's "
                    "tool_call_id must name the id of a tool_calls entry of an earlier assistant message."
                ),
            }
        ),
    ]
    agent: CreatingAgent = None


# Client actions ------------------------------------------------------------------


class ClientActionIn(Schema):
    model_config = example(
        {
            "callId": "call_refund",
            "name": "issue_refund",
            "arguments": {"orderId": 1234, "amount": 750, "currency": "USD"},
            "description": "Refund above the $500 self-service limit",
            "expiresAt": "2099-12-31T23:59:59Z",
        }
    )

    callId: Identifier
    name: ActionName
    arguments: JsonObject = Field(description=ACTION_FIELD_LIMIT)
    description: Text | None = Field(None, description=ACTION_FIELD_LIMIT)
    expiresAt: Timestamp | None = Field(None, description="ISO 8601 with a timezone, in the future.")
    allowedResponses: list[AnyDecision] | None = Field(
        None,
        min_length=1,
        description=f"The decisions a person may make; default {', '.join(DEFAULT_ALLOWED)}. "
        "`edit` is approve with changed arguments.",
    )
    responseSchema: Annotated[JsonObject, WithJsonSchema(response_schemas.OPENAPI_FORM)] | None = Field(
        None,
        description="JSON Schema of the answer a respond carries: an object whose properties are string, number, "
        "integer, boolean, a string enum or an array of strings (required, title, description, default, "
        f"minimum/maximum, maxLength honoured); without one the answer is free text. {ACTION_FIELD_LIMIT}",
    )


class ClientActionQuery(Pagination):
    status: ClientActionStatus | None = None
    agent: Filter | None = None
    sessionId: Filter | None = None


class WaitQuery(Schema):
    wait: float | None = Field(
        None,
        ge=0,
        le=60,
        allow_inf_nan=False,
        description="Seconds to wait for the action to leave waiting.",
    )


class ResultIn(Schema):
    model_config = example({"output": {"refunded": True, "amount": 750}, "isError": False})

    output: Any
    isError: StrictBool = False


DIGEST_PATTERN = r"^sha256:[0-9a-f]{64}$"


class ExecutionIn(Schema):
    model_config = example(
        {"argumentsDigest": "sha256:bcb676c2c57862a3579297382f6d8f2a7de1e5d89deac98e772bccc790f986fb"}
    )

    argumentsDigest: str = Field(
        pattern=DIGEST_PATTERN,
        description='The digest of the arguments about to run: "sha256:" + the lowercase hex SHA-256 of their RFC 8785 '
        "canonical JSON.",
    )


class ExecutionOut(Schema):
    executedAt: Time
    argumentsDigest: str

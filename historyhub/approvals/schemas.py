"""The wire of a client action's answer: the action with its policy and votes, and a decision's body (docs/api.md,
"Client actions", "Several approvers"). Field names are the wire's camelCase, read from the domain's objects
(``Out``), as in ``history.schemas``, which holds the shapes that know nothing of approvals (opening an action, a
result, an execution claim, the queries).
"""

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from django.utils import timezone
from ninja import Field, Schema

from historyhub.approvals import votes
from historyhub.approvals.decisions import SENT
from historyhub.approvals.models import Via, Vote
from historyhub.history.models import ClientAction, ClientActionStatus
from historyhub.history.schemas import ACTION_FIELD_LIMIT, JsonObject
from historyhub.lib import session_keys
from historyhub.lib.schemas import Out, Page, Text, Time, example

# The words of a vocabulary as the contract lists them: an enum of strings in the OpenAPI document, built from the
# vocabulary at run time; the type checker reads them as the strings they are.
if TYPE_CHECKING:
    SentDecision: TypeAlias = str
    ViaName: TypeAlias = str
else:
    SentDecision = Literal[SENT]
    ViaName = Literal[tuple(Via.values)]


class ActionPolicyOut(Schema):
    name: str
    requiredApprovals: int
    approverGroups: list[str]
    peopleOnly: bool


class VoteOut(Out):
    by: str = Field(description='As resolvedBy: a username, or "api key: <name>".')
    via: ViaName = Field(description="The channel the decision came through.")
    decision: SentDecision
    arguments: JsonObject | None = Field(description="The arguments an approve voted for.")
    comment: str | None
    at: Time
    counts: bool = Field(
        description="False for a vote on a waiting action whose decider may no longer decide it (left the policy's "
        "groups, lost the approver role, was deactivated, or a key revoked): it no longer counts."
    )
    why: str | None = Field(description="Why the vote no longer counts; null while it counts.")

    @staticmethod
    def resolve_comment(vote: Vote) -> str | None:
        return vote.comment or None

    @staticmethod
    def resolve_counts(vote: Vote) -> bool:
        return VoteOut.resolve_why(vote) is None

    @staticmethod
    def resolve_why(vote: Vote) -> str | None:
        why: str | None = getattr(vote, "why", None)  # set by votes.judge
        return why


class ClientActionOut(Out):
    sessionId: str
    callId: str
    name: str
    arguments: JsonObject
    argumentsDigest: str | None = Field(
        description='"sha256:" + the lowercase hex SHA-256 of the arguments\' RFC 8785 canonical JSON (null only for '
        "arguments JCS cannot write: a lone surrogate, an integer beyond any double)."
    )
    description: str
    status: ClientActionStatus = Field(description="As it reads now: a waiting action past its expiresAt is expired.")
    createdAt: Time
    expiresAt: Time | None
    resolvedAt: Time | None
    resolvedBy: str | None = Field(
        description='The dashboard user, "api key: <name>", or "agent (reported)" when the agent\'s own items settled '
        "it."
    )
    decision: SentDecision | None
    comment: str | None
    approvedArguments: JsonObject | None
    approvedArgumentsDigest: str | None = Field(
        description="The same digest of approvedArguments: null until approved, argumentsDigest when approved "
        "unchanged."
    )
    response: Any = Field(description="The answer of a respond: a string, or an object valid against responseSchema.")
    output: Any
    isError: bool | None
    allowedResponses: list[str] = Field(description="The decisions a person may make.")
    responseSchema: JsonObject | None
    policy: ActionPolicyOut | None = Field(description="The approval policy that governs it, fixed when it opened.")
    votes: list[VoteOut] = Field(description="Every decision made on it, oldest first: the audit of who decided.")
    approvalsNeeded: int = Field(description="Approvals still missing; 0 once resolved.")
    escalatedAt: Time | None
    executedAt: Time | None = Field(
        description="When the agent's side claimed the execution of the approved arguments (…/execution); null until "
        "then."
    )
    reported: bool = Field(
        description='Settled as the agent\'s own items reported it (resolvedBy "agent (reported)"): no decision was '
        "given here, and it cannot be claimed for execution."
    )
    imported: bool = Field(
        description="Imported already resolved: its record (votes, resolvedBy) is the export's, and it can never be "
        "decided here."
    )

    @staticmethod
    def resolve_votes(action: ClientAction) -> list[Vote]:
        return votes.judged(action)

    @staticmethod
    def resolve_approvals_needed(action: ClientAction) -> int:
        return votes.approvals_needed(action)

    @staticmethod
    def resolve_allowed_responses(action: ClientAction) -> list[str]:
        return list(action.allowed)

    @staticmethod
    def resolve_status(action: ClientAction) -> str:
        status: str = action.status_at(timezone.now())
        return status

    # Resolvers are named for the attribute they stand in for.
    @staticmethod
    def resolve_session_id(action: ClientAction) -> str:
        """The id its project knows the session by, not the session's key."""
        return session_keys.session_id_of(action.session_id)

    @staticmethod
    def resolve_resolved_by(action: ClientAction) -> str | None:
        return action.resolved_by or None

    @staticmethod
    def resolve_decision(action: ClientAction) -> str | None:
        return action.decision or None

    @staticmethod
    def resolve_comment(action: ClientAction) -> str | None:
        return action.comment or None


class ClientActionPage(Page):
    items: list[ClientActionOut]


class DecisionIn(Schema):
    model_config = example({"decision": "approve", "comment": "Confirmed with the customer."})

    decision: SentDecision
    comment: Text | None = Field(None, description=ACTION_FIELD_LIMIT)
    arguments: JsonObject | None = Field(None, description=f"Edited arguments, on approve. {ACTION_FIELD_LIMIT}")
    response: Any = Field(
        None,
        description="On respond: a string when the action has no responseSchema, else an object valid against it. "
        + ACTION_FIELD_LIMIT,
    )

"""The bodies of the runs endpoints, field for field (docs/python-client.md, "Runs that wait for people")."""

from ninja import Field, Schema

from historyhub.lib import session_keys
from historyhub.lib.schemas import Filter, Identifier, Out, Page, Pagination, Text, Time, example
from historyhub.runs.parking import MAX_AWAITED, MAX_LEASE_SECONDS, RUN_ID

RUN_ID_PATTERN = f"^{RUN_ID.pattern}$"


class RunIn(Schema):
    model_config = example({"agent": "support", "state": '{"$schemaVersion": "1.0"}', "callIds": ["call_refund"]})

    agent: Identifier = Field(description="The starting agent's name; the resumer supplies the agent of that name.")
    state: Text = Field(min_length=1, description="The agent SDK's serialised run state, kept verbatim.")
    callIds: list[Identifier] = Field(
        min_length=1, max_length=MAX_AWAITED, description="The client actions of this session the run waits on."
    )


class ClaimIn(Schema):
    model_config = example({"leaseSeconds": 600})

    leaseSeconds: int | None = Field(
        None, ge=1, le=MAX_LEASE_SECONDS, description="How long the claim holds (default 600 seconds)."
    )


class RunQuery(Pagination):
    ready: bool | None = Field(None, description="Every awaited client action decided (or expired), and unclaimed.")
    agent: Filter | None = None
    sessionId: Filter | None = None


class RunSummary(Out):
    sessionId: str
    runId: str
    agent: str
    callIds: list[str] = Field(description="The awaited client actions, in the order they were opened.")
    ready: bool = Field(description="Every awaited client action decided (or expired), and no resumer holds it.")
    claimedUntil: Time | None
    claimedBy: str | None = Field(description='The API key that claimed it: "api key: <name>".')
    createdAt: Time
    updatedAt: Time

    # Resolvers are named for the attribute they stand in for.
    @staticmethod
    def resolve_session_id(run):
        """The id its project knows the session by, not the session's key."""
        return session_keys.session_id_of(run.session_id)

    @staticmethod
    def resolve_call_ids(run):
        return [action.call_id for action in run.awaiting.all()]

    @staticmethod
    def resolve_claimed_by(run):
        return run.claimed_by or None


class RunOut(RunSummary):
    state: str


class RunPage(Page):
    items: list[RunSummary]

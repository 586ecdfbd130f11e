"""The bodies of the runs endpoints, field for field (docs/python-client.md, "Runs that wait for people")."""

from ninja import Field, Schema

from historyhub.history.schemas import Filter, Identifier, Page, PageNumber, PageSize, Timestamp
from historyhub.runs.parking import MAX_AWAITED, MAX_LEASE_SECONDS, RUN_ID

RUN_ID_PATTERN = f"^{RUN_ID.pattern}$"


class RunIn(Schema):
    agent: Identifier = Field(description="The starting agent's name; the resumer supplies the agent of that name.")
    state: str = Field(min_length=1, description="The agent SDK's serialised run state, kept verbatim.")
    callIds: list[Identifier] = Field(
        min_length=1, max_length=MAX_AWAITED, description="The client actions of this session the run waits on."
    )


class ClaimIn(Schema):
    leaseSeconds: int | None = Field(
        None, ge=1, le=MAX_LEASE_SECONDS, description="How long the claim holds (default 600 seconds)."
    )


class RunFilters(Schema):
    ready: bool | None = Field(None, description="Every awaited client action decided (or expired), and unclaimed.")
    agent: Filter | None = None
    sessionId: Filter | None = None
    page: PageNumber = None
    pageSize: PageSize = None


class RunSummary(Schema):
    sessionId: str
    runId: str
    agent: str
    callIds: list[str]
    ready: bool = Field(description="Every awaited client action decided (or expired), and no resumer holds it.")
    claimedUntil: Timestamp | None
    claimedBy: str | None
    createdAt: Timestamp
    updatedAt: Timestamp


class RunOut(RunSummary):
    state: str


class RunPage(Page):
    items: list[RunSummary]

"""The audit log over the API (docs/api.md, "Data"): ``GET /api/v1/audit``, for admin keys of the project only."""

from datetime import UTC, datetime

from ninja import Field, Query, Schema

from historyhub.apikeys.auth import ApiKeyAuth, KeyedRequest
from historyhub.apikeys.models import Scope
from historyhub.audit import chain
from historyhub.audit import log as audit_log
from historyhub.lib import paging
from historyhub.lib.endpoints import errors
from historyhub.lib.errors import InvalidInput
from historyhub.lib.jsonvalues import JSON
from historyhub.lib.schemas import TIMESTAMP_SCHEMA, Filter, Page, Pagination, Timestamp
from historyhub.projects.scoping import ScopedRouter

router = ScopedRouter(tags=["audit"])


class AuditQuery(Pagination):
    # "from" is a Python keyword: the field is named for what it does and takes the wire's name as its alias.
    since: Timestamp | None = Field(None, alias="from", description="Only rows recorded at or after this time.")
    until: Timestamp | None = Field(None, alias="to", description="Only rows recorded before this time.")
    actor: Filter | None = Field(None, description='Only this actor\'s rows (a username, "api key: <name>", …).')
    action: Filter | None = Field(None, description="Only rows of this action, e.g. decision.")


class AuditRowOut(Schema):
    seq: int = Field(description="The row's place in the project's chain, from 1 without gaps.")
    at: str = Field(json_schema_extra=TIMESTAMP_SCHEMA)
    actor: str
    action: str
    target: str
    details: dict[str, JSON]
    prevHash: str = Field(description="The previous row's hash; sha256: and 64 zeros for the first row.")
    hash: str = Field(
        description="sha256: + the hex SHA-256 of prevHash followed by the RFC 8785 JSON of "
        '{seq, at, actor, action, target, details} (docs/data.md, "The chain").'
    )


class AuditPage(Page):
    items: list[AuditRowOut]


@router.get("/audit", auth=ApiKeyAuth(Scope.ADMIN), response={200: AuditPage, **errors(403)})
def list_audit_entries(request: KeyedRequest, query: Query[AuditQuery]) -> paging.Paged:
    """The project's audit log, newest (the highest seq) first, each row with its place in the hash chain (admin
    key: other keys 403). ``from`` is inclusive, ``to`` exclusive."""
    rows = audit_log.entries(
        request.auth.project_id,
        actor=query.actor,
        action=query.action,
        since=_moment(query.since, "from"),
        until=_moment(query.until, "to"),
    )
    paged = paging.page_of(rows, query.page, query.pageSize)
    paged.items = [chain.row(entry) for entry in paged.items]
    return paged


def _moment(text: str | None, name: str) -> datetime | None:
    """A filter's time: ISO 8601 with a zone, as every time the API takes (``Z`` for UTC)."""
    if not text:  # ?from=&to= filter nothing, as an empty actor or action does
        return None
    moment: datetime | None
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        # A moment UTC cannot hold (before year 1, after 9999) is refused here, not by the query.
        moment = moment.astimezone(UTC) if moment.tzinfo is not None else None
    except (ValueError, OverflowError):
        moment = None
    if moment is None:
        raise InvalidInput(f"{name} must be an ISO 8601 time with a time zone, e.g. 2026-09-28T12:00:00Z.")
    return moment

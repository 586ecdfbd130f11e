"""What every app's endpoints share (docs/api.md, "Conventions"): the error responses they declare, a page of a
queryset, and a session id in a path."""

from typing import Annotated, Any, TypeVar

from django.db.models import QuerySet
from ninja import Path, Status

from historyhub.lib import paging
from historyhub.lib.schemas import SESSION_ID_PATTERN, Error, Pagination

T = TypeVar("T")

# The examples are the walk-through's ids (docs/api.md), so "Try it out" names what the body examples made.
SessionId = Annotated[str, Path(alias="sessionId", example="support-42", pattern=SESSION_ID_PATTERN)]


def errors(*statuses: int) -> dict[int, type[Error]]:
    """The error responses an endpoint declares; every one is an Error body."""
    return dict.fromkeys((400, 401, *statuses), Error)


def ok(result: T) -> Status[T]:
    """A 200 of a named result: ninja would read a bare 2-tuple as (status, body)."""
    return Status(200, result)


def page_of(queryset: QuerySet[Any], query: Pagination) -> paging.Paged:
    """One page of a queryset, with its exact total."""
    return paging.page_of(queryset, query.page, query.pageSize)

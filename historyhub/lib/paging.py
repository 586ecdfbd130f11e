"""Pages of a list, as the API and the dashboard show them: ``page`` from 1, a size, the total, and
whether a further page exists."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet


@dataclass
class Paged:
    items: list[Any]
    page: int
    page_size: int
    total: int
    has_more: bool
    # False when the rows were counted only up to a limit: there are more than ``total``.
    total_is_exact: bool = True


def page_of(queryset: QuerySet[Any], page: int, page_size: int) -> Paged:
    """One page of a queryset and its exact total; its items are the rows themselves."""
    return page_of_parts(lambda first: queryset, lambda up_to: queryset.count(), page, page_size)


def page_of_parts(
    rows: Callable[[int], QuerySet[Any]],
    count: Callable[[int | None], int],
    page: int,
    page_size: int,
    count_limit: int | None = None,
) -> Paged:
    """One page of a list that is read in parts, each no further than it needs (sessions.search):
    ``rows(n)`` is a queryset whose first n rows are the list's, ``count(n)`` how many rows the list
    holds, counting at most n (all of them for None).

    The total is exact unless ``count_limit`` is given: then rows are counted only up to that many,
    or to the end of the page if it lies further (docs/search.md, "Counting").
    """
    start = (page - 1) * page_size
    stop = start + page_size
    reach = None if count_limit is None else max(count_limit, stop) + 1
    counted = count(reach)
    items = list(rows(stop)[start:stop]) if start < counted else []
    exact = reach is None or counted < reach
    total = counted if reach is None or exact else reach - 1
    return Paged(items, page, page_size, total, start + len(items) < counted, exact)

"""Pages of a list, as the API and the dashboard show them: ``page`` from 1, a size, the total, and
whether a further page exists."""

from dataclasses import dataclass


@dataclass
class Paged:
    items: list
    page: int
    page_size: int
    total: int
    has_more: bool
    # False when the rows were counted only up to a limit: there are more than ``total``.
    total_is_exact: bool = True


def page_of(queryset, page, page_size):
    """One page of a queryset and its exact total; its items are the rows themselves."""
    return page_of_parts(lambda first: queryset, lambda up_to: queryset.count(), page, page_size)


def page_of_parts(rows, count, page, page_size, count_limit=None):
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
    return Paged(items, page, page_size, counted if exact else reach - 1, start + len(items) < counted, exact)

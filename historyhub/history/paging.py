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


def page_of(queryset, page, page_size):
    """One page of a queryset; its items are the rows themselves."""
    total = queryset.count()
    start = (page - 1) * page_size
    rows = list(queryset[start : start + page_size]) if start < total else []
    return Paged(rows, page, page_size, total, start + len(rows) < total)

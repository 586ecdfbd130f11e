"""History pages (docs/api.md, "History"): page 1 is the newest page, items are
chronological within a page, ``hasMore`` says an older page exists.

Timeline entries carry a dense rank (``seq``) within their epoch and the
session keeps their count, so a page is one bounded range scan on an index:
page 5,000 costs what page 1 costs, with no OFFSET and no COUNT(*).
"""

from dataclasses import dataclass

from django.utils import timezone

from historyhub.history import client_action_cards, sessions
from historyhub.history.models import TimelineEntry
from historyhub.lib import validation
from historyhub.lib.times import format_time


@dataclass
class HistoryPage(sessions.Snapshot):
    """A page of the timeline, with the session's snapshot."""

    items: list
    page: int
    page_size: int
    total: int
    has_more: bool


def entry_as_item(entry, now):
    """A timeline entry as a history item, as a reader sees it at ``now`` (expiry shows by itself).

    Entries are stored in the history item's wire shape (docs/architecture.md, "Timeline entries"),
    so a page is read without building anything but the envelope.
    """
    data = client_action_cards.as_shown(entry.type, entry.value, now)
    return {"id": entry.key, "type": entry.type, "createdAt": format_time(entry.created_at), **data}


def page_bounds(total, page, page_size):
    """The seq range (low, high] of a page, newest page first."""
    high = total - (page - 1) * page_size
    return max(0, high - page_size), max(0, high)


def entries_between(session, epoch, low, high):
    # The LIMIT lets the planner walk the index for this range whatever the table's size.
    return TimelineEntry.objects.filter(session=session, epoch=epoch, seq__gt=low, seq__lte=high).order_by("seq")[
        : max(0, high - low)
    ]


def history(key, page=None, page_size=None):
    page, page_size = validation.pagination(page, page_size)
    session = sessions.get(key)
    now = timezone.now()
    low, high = page_bounds(session.history_count, page, page_size)
    entries = entries_between(session, session.epoch, low, high) if high else []
    return HistoryPage(
        **sessions.snapshot_fields(session, now),
        items=[entry_as_item(entry, now) for entry in entries],
        page=page,
        page_size=page_size,
        total=session.history_count,
        has_more=low > 0,
    )

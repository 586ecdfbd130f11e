"""History pages (orcha-session-history.txt): page 1 is the newest page,
items are chronological within a page, ``hasMore`` says an older page exists.

Timeline entries carry a dense rank (``seq``) within their epoch and the
session keeps their count, so a page is one range scan on an index: page
5,000 costs what page 1 costs, with no OFFSET and no COUNT(*).
"""

from historyhub.history import sessions, validation
from historyhub.history.dialects import format_time
from historyhub.history.models import TimelineEntry


def entry_as_item(entry):
    return {"id": entry.key, "type": entry.type, "createdAt": format_time(entry.created_at), **entry.value}


def page_bounds(total, page, page_size):
    """The seq range (low, high] of a page, newest page first."""
    high = total - (page - 1) * page_size
    return max(0, high - page_size), max(0, high)


def entries_between(session, epoch, low, high):
    return TimelineEntry.objects.filter(session=session, epoch=epoch, seq__gt=low, seq__lte=high).order_by("seq")


def history(session_id, page=None, page_size=None):
    page, page_size = validation.pagination(page, page_size)
    session = sessions.get(session_id)
    low, high = page_bounds(session.history_count, page, page_size)
    items = [entry_as_item(entry) for entry in entries_between(session, session.epoch, low, high)] if high else []
    return {
        **sessions.snapshot(session),
        "items": items,
        "page": page,
        "pageSize": page_size,
        "total": session.history_count,
        "hasMore": low > 0,
    }

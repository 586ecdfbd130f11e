"""Times on the wire: ISO 8601 in UTC with a Z (docs/api.md, "Conventions")."""

from datetime import UTC, datetime
from typing import overload


@overload
def format_time(moment: datetime) -> str: ...
@overload
def format_time(moment: None) -> None: ...
def format_time(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with Z; milliseconds only when there are some."""
    if moment is None:
        return None
    # isoformat, unlike strftime, writes years before 1000 with four digits.
    moment = moment.astimezone(UTC).replace(tzinfo=None)
    # Judged on the milliseconds written, not the microseconds stored: 12:00:00.000412 is "12:00:00Z", as its
    # ".000" would read back as a different time than what an import of it stores and exports again.
    return moment.isoformat(timespec="milliseconds" if moment.microsecond >= 1000 else "seconds") + "Z"

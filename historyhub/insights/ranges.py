"""The time range and filters every Insights number is computed over (docs/insights.md, "Ranges and filters")."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from historyhub.lib.errors import InvalidInput

DEFAULT_SPAN = timedelta(days=7)
# The page's presets; the API takes any from/to.
SPANS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30)}
BUCKETS = {"hour": timedelta(hours=1), "day": timedelta(days=1)}
# More buckets than this would be a chart nobody reads and a series nobody needs: ask for a coarser bucket.
MAX_BUCKETS = 2000


@dataclass(frozen=True)
class Filters:
    """Which actions and sessions count. Empty strings filter nothing."""

    agent: str = ""
    action: str = ""
    policy: str = ""
    decider: str = ""
    model: str = ""


@dataclass(frozen=True)
class Range:
    """[since, until) cut into buckets of ``bucket`` (hour or day), aligned to UTC hours or days."""

    since: datetime
    until: datetime
    bucket: str

    @property
    def step(self) -> timedelta:
        return BUCKETS[self.bucket]

    def starts(self) -> list[datetime]:
        """The start of every bucket that overlaps the range, the first aligned down."""
        first = floor(self.since, self.bucket)
        return [first + self.step * index for index in range(self.count())]

    def count(self) -> int:
        first = floor(self.since, self.bucket)
        return max(0, -(-(self.until - first) // self.step))


def floor(moment: datetime, bucket: str) -> datetime:
    moment = moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    return moment.replace(hour=0) if bucket == "day" else moment


def parse_time(text: str | None, name: str) -> datetime | None:
    """An ISO 8601 time with a zone (``Z`` for UTC), or None when not given (an empty value is no time: refused,
    as the OpenAPI document's date-time format says)."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        if moment.tzinfo is None:
            raise ValueError
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidInput(f"{name} must be an ISO 8601 time with a time zone, e.g. 2026-09-28T12:00:00Z.") from None


def make(since: datetime | None, until: datetime | None, bucket: str | None, now: datetime) -> Range:
    """The range asked for: by default the 7 days before now, by hour up to two days and by day beyond."""
    until = until or now
    since = since or until - DEFAULT_SPAN
    if since >= until:
        raise InvalidInput("from must be before to.")
    if not bucket:
        bucket = "hour" if until - since <= timedelta(days=2) else "day"
    if bucket not in BUCKETS:
        raise InvalidInput('bucket must be "hour" or "day".')
    chosen = Range(since, until, bucket)
    if chosen.count() > MAX_BUCKETS:
        raise InvalidInput(f"The range holds more than {MAX_BUCKETS} buckets of one {bucket}: choose bucket=day.")
    return chosen

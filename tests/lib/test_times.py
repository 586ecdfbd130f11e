from datetime import UTC, datetime, timedelta, timezone

import pytest

from historyhub.lib.times import format_time


@pytest.mark.parametrize(
    ("microsecond", "written"),
    [
        (0, "2026-12-06T02:40:34Z"),
        # Under a millisecond there is no millisecond to write: ".000" would not read back as this time.
        (412, "2026-12-06T02:40:34Z"),
        (999, "2026-12-06T02:40:34Z"),
        (1000, "2026-12-06T02:40:34.001Z"),
        (34_999, "2026-12-06T02:40:34.034Z"),
    ],
)
def test_milliseconds_are_written_only_when_there_are_some(microsecond, written):
    assert format_time(datetime(2026, 12, 6, 2, 40, 34, microsecond, tzinfo=UTC)) == written


def test_what_is_written_reads_back_as_a_time_that_is_written_the_same():
    for microsecond in (0, 1, 999, 1000, 123_456, 999_999):
        moment = datetime(2026, 12, 6, 2, 40, 34, microsecond, tzinfo=UTC)
        written = format_time(moment)
        assert format_time(datetime.fromisoformat(written)) == written


def test_any_zone_is_written_in_utc_and_years_before_1000_with_four_digits():
    plus_two = timezone(timedelta(hours=2))
    assert format_time(datetime(2026, 12, 6, 4, 0, tzinfo=plus_two)) == "2026-12-06T02:00:00Z"
    assert format_time(datetime(999, 1, 2, tzinfo=UTC)) == "0999-01-02T00:00:00Z"
    assert format_time(None) is None

"""The approvals numbers on a known data set: counts, outcomes and percentiles computed here by hand."""

from datetime import timedelta

import pytest

from historyhub.insights import approvals, ranges
from historyhub.insights.ranges import Filters
from historyhub.projects import administration
from tests.insights.seeding import START, action, minutes, session

DAY = ranges.make(START, START + timedelta(days=1), "hour", START + timedelta(days=3))
NOW = START + timedelta(days=3)


@pytest.fixture
def seeded(db):
    support = session("s1", agent="support")
    billing = session("s2", agent="billing")
    # Waits of 2, 4, 6, 8 and 30 minutes for refund decisions; one edit, one reject.
    action(support, "a1", "refund", minutes(0), minutes(2), "approve", by="ann")
    action(support, "a2", "refund", minutes(10), minutes(4), "approve", by="ann", edited=True)
    action(support, "a3", "refund", minutes(20), minutes(6), "reject", by="bob")
    action(billing, "a4", "delete_account", minutes(70), minutes(8), "reject", by="bob")
    action(billing, "a5", "delete_account", minutes(80), minutes(30), "respond", by="ann")
    # Expired by the sweep at its expiresAt, 90 minutes in.
    action(
        billing,
        "a6",
        "delete_account",
        minutes(30),
        status="expired",
        resolved_at=START + minutes(90),
        expires_at=START + minutes(90),
    )
    # Decided the next day: outside the range.
    action(support, "a7", "refund", timedelta(days=1, minutes=5), minutes(1), "approve", by="ann")
    # Still waiting, one escalated.
    action(support, "w1", "refund", timedelta(days=2), escalated_at=NOW - minutes(5))
    action(billing, "w2", "delete_account", timedelta(days=2, hours=12))
    return support, billing


def test_time_to_decision_is_percentile_cont_of_the_decided_ones(seeded):
    found = approvals.compute("default", DAY, Filters(), NOW)
    # 120, 240, 360, 480, 1800 s: p50 is the 3rd; p90 interpolates 0.6 of the way from 480 to 1800.
    assert found.decided.count == 5
    assert found.decided.p50 == pytest.approx(360)
    assert found.decided.p90 == pytest.approx(480 + 0.6 * 1320)
    assert found.decided.max == pytest.approx(1800)


def test_outcomes_tell_edits_apart_from_approvals(seeded):
    found = approvals.compute("default", DAY, Filters(), NOW)
    assert found.outcomes == {"approved": 1, "edited": 1, "rejected": 2, "answered": 1, "dismissed": 0, "expired": 1}


def test_by_action_counts_decided_and_expired_with_rates(seeded):
    found = approvals.compute("default", DAY, Filters(), NOW)
    rows = {row.name: row for row in found.by_action}
    assert [row.name for row in found.by_action] == ["delete_account", "refund"]
    assert rows["delete_account"].count == 3
    assert rows["delete_account"].rate(rows["delete_account"].rejected) == pytest.approx(0.3333)
    assert rows["delete_account"].p50 == pytest.approx((480 + 1800) / 2)
    assert (rows["refund"].approved, rows["refund"].edited, rows["refund"].rejected) == (1, 1, 1)
    assert rows["refund"].p50 == pytest.approx(240)


def test_by_decider_counts_and_medians(seeded):
    found = approvals.compute("default", DAY, Filters(), NOW)
    assert [(row.by, row.count) for row in found.by_decider] == [("ann", 3), ("bob", 2)]
    assert found.by_decider[0].p50 == pytest.approx(240)
    assert found.by_decider[1].p50 == pytest.approx((360 + 480) / 2)


def test_the_series_puts_each_action_in_the_hour_it_opened_or_stopped_waiting(seeded):
    found = approvals.compute("default", DAY, Filters(), NOW)
    assert len(found.series) == 24
    first, second = found.series[0], found.series[1]
    assert (first.opened, first.decided, first.expired) == (4, 3, 0)
    assert (second.opened, second.decided, second.expired) == (2, 2, 1)
    assert second.p50 == pytest.approx((480 + 1800) / 2)
    assert all(row.opened == row.decided == row.expired == 0 for row in found.series[2:])


def test_waiting_now_ignores_the_range_and_counts_escalations(seeded):
    found = approvals.compute("default", DAY, Filters(), NOW)
    assert found.waiting_now.count == 2
    assert found.waiting_now.oldest_seconds == pytest.approx(86400)
    assert found.waiting_now.escalated == 1
    bands = approvals.waiting_by_age("default", Filters(), NOW)
    assert [(band.count, band.escalated) for band in bands] == [(0, 0), (1, 0), (1, 1), (0, 0)]


def test_filters_narrow_every_number(seeded):
    by_agent = approvals.compute("default", DAY, Filters(agent="billing"), NOW)
    assert by_agent.decided.count == 2
    assert by_agent.outcomes["expired"] == 1
    assert by_agent.waiting_now.count == 1
    by_action = approvals.compute("default", DAY, Filters(action="refund"), NOW)
    assert by_action.decided.p50 == pytest.approx(240)
    by_decider = approvals.compute("default", DAY, Filters(decider="bob"), NOW)
    assert by_decider.outcomes["rejected"] == 2
    assert by_decider.decided.count == 2


def test_a_waiting_action_past_its_expiry_counts_as_expired_when_it_expired(seeded):
    support, _ = seeded
    action(support, "late", "refund", minutes(100), expires_at=START + minutes(130))
    found = approvals.compute("default", DAY, Filters(), NOW)
    assert found.outcomes["expired"] == 2
    assert found.series[2].expired == 1


def test_another_projects_actions_never_count(seeded):
    administration.create_project("staging", "Staging")
    theirs = session("x1", project="staging")
    action(theirs, "t1", "refund", minutes(1), minutes(1), "approve", by="eve")
    action(theirs, "t2", "refund", timedelta(days=2))
    found = approvals.compute("default", DAY, Filters(), NOW)
    assert found.decided.count == 5
    assert found.waiting_now.count == 2
    assert "eve" not in [row.by for row in found.by_decider]
    staging = approvals.compute("staging", DAY, Filters(), NOW)
    assert (staging.decided.count, staging.waiting_now.count) == (1, 1)

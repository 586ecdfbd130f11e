"""The demo's week of decided actions: Insights reads a project's week from it (docs/insights.md)."""

from datetime import timedelta

from django.utils import timezone

from historyhub.demo.demo_data import write_demo
from historyhub.history.models import ClientAction, Item, Session, TimelineEntry
from historyhub.insights import approvals, ranges, usage
from historyhub.insights.approvals import OUTCOMES
from historyhub.lib.session_keys import DEFAULT_PROJECT


def last_week():
    now = timezone.now()
    return ranges.Range(now - timedelta(days=7), now, "day"), now


def test_the_last_week_of_the_demo_has_every_outcome_and_tokens(db):
    write_demo()
    week, now = last_week()
    found = approvals.compute(DEFAULT_PROJECT, week, ranges.Filters(), now)
    assert found.decided.count > 0
    assert all(found.outcomes[outcome] > 0 for outcome in OUTCOMES), found.outcomes
    assert len(found.by_decider) >= 2
    assert found.decided.p50 is not None and found.decided.max > found.decided.p50
    # Spread over the week, not one day.
    assert sum(1 for bucket in found.series if bucket.decided) >= 5
    # The demo's two actions still wait.
    assert found.waiting_now.count == 2
    spent = usage.compute(DEFAULT_PROJECT, week, ranges.Filters())
    assert sum(bucket.tokens.input + bucket.tokens.output for bucket in spent.series) > 0
    assert sum(1 for bucket in spent.series if bucket.tokens.input) >= 5


def written():
    counts = [model.objects.count() for model in (Session, Item, TimelineEntry, ClientAction)]
    actions = ClientAction.objects.order_by("pk").values_list("pk", "created_at", "resolved_at", "resolved_by")
    return counts, list(actions)


def test_writing_the_demo_twice_changes_nothing(db):
    write_demo()
    first = written()
    write_demo()
    assert written() == first

from datetime import timedelta

import pytest
from django.utils import timezone

from historyhub.audit.models import AuditEntry
from historyhub.history import client_actions, item_log, sessions
from historyhub.history.models import ClientAction, Item, Session
from historyhub.projects.models import Project
from historyhub.upkeep import retention
from tests.data.sessions import full_session, remaining, rows_of
from tests.support.items import user
from tests.support.processes import PROCESSES, run_together

NOW = timezone.now()


def age(key, days):
    """The session was last updated ``days`` ago."""
    Session.objects.filter(pk=key).update(updated_at=NOW - timedelta(days=days))


def keep_for(days, project="default"):
    Project.objects.filter(pk=project).update(retention_days=days)


def test_it_deletes_exactly_the_sessions_not_updated_for_the_retention_with_all_they_own(api, acme):
    keep_for(30)
    for session_id in ("old", "recent", "waiting"):
        full_session(api, session_id)
    full_session(acme, "old")
    for key in ("old", "recent", "acme/old"):
        client_actions.supply_result(key, "call-1", output="done", is_error=False, resolved_by="test")
    age("old", 31)
    age("recent", 29)
    age("waiting", 400)
    age("acme/old", 400)

    deleted = retention.sweep(NOW)

    assert deleted == 1
    assert rows_of("old") == dict.fromkeys(rows_of("old"), 0)
    assert remaining() == ["acme/old", "recent", "waiting"]


def test_a_session_whose_waiting_action_expired_is_no_longer_kept(db):
    keep_for(1)
    sessions.ensure(agent="a", session_id="expired")
    client_actions.open_action("expired", call_id="c", name="n", arguments={})
    ClientAction.objects.filter(session_id="expired").update(expires_at=NOW - timedelta(days=3))
    Session.objects.filter(pk="expired").update(waiting_until=NOW - timedelta(days=3))
    age("expired", 2)

    assert retention.sweep(NOW) == 1
    assert remaining() == []


def test_a_project_without_retention_keeps_everything(db):
    sessions.ensure(agent="a", session_id="ancient")
    age("ancient", 10_000)

    assert retention.sweep(NOW) == 0
    assert remaining() == ["ancient"]


def test_a_due_parent_is_kept_while_a_descendant_is_not_due_and_a_due_child_goes_alone(db):
    keep_for(7)
    sessions.ensure(agent="a", session_id="parent")
    sessions.ensure(agent="a", session_id="child", parent_session_id="parent", parent_call_id="c1")
    sessions.ensure(agent="a", session_id="grandchild", parent_session_id="child", parent_call_id="c2")
    sessions.ensure(agent="a", session_id="busy")
    sessions.ensure(agent="a", session_id="done", parent_session_id="busy", parent_call_id="c3")
    for key in ("parent", "child", "done"):
        age(key, 8)

    deleted = retention.sweep(NOW)

    assert deleted == 1
    assert remaining() == ["busy", "child", "grandchild", "parent"]


def test_it_deletes_in_batches_until_nothing_is_due(db):
    keep_for(1)
    for number in range(7):
        sessions.ensure(agent="a", session_id=f"s{number}")
        item_log.append(f"s{number}", [user("hi")])
        age(f"s{number}", 2)

    # Pages of 3 due sessions, each deleted as batches of 2 and 1; the last page holds one.
    assert retention.sweep(NOW, batch_size=2, page_size=3) == 7
    assert remaining() == []
    assert not Item.objects.exists()
    batches = AuditEntry.objects.filter(action="retention.deleted").order_by("pk")
    assert [len(entry.details["sessionIds"]) for entry in batches] == [2, 1, 2, 1, 1]


def test_a_session_kept_on_one_page_is_not_read_again_and_the_sweep_ends(db):
    keep_for(1)
    sessions.ensure(agent="a", session_id="parent")
    sessions.ensure(agent="a", session_id="child", parent_session_id="parent", parent_call_id="c1")
    age("parent", 9)  # the oldest, on the first page, and kept: its child is not due
    for number in range(4):
        sessions.ensure(agent="a", session_id=f"s{number}")
        age(f"s{number}", 2 + number)

    assert retention.sweep(NOW, batch_size=1, page_size=2) == 4
    assert remaining() == ["child", "parent"]


def test_a_sweep_out_of_time_deletes_one_batch_and_the_next_sweep_takes_what_is_left(db):
    keep_for(1)
    for number in range(3):
        sessions.ensure(agent="a", session_id=f"s{number}")
        age(f"s{number}", 2 + number)
    keep_for(1, Project.objects.create(id="zeta", name="Zeta").pk)
    sessions.ensure(agent="a", session_id="s9", project="zeta")
    age("zeta/s9", 2)

    # The oldest first, and no other project's batch once the time is up.
    assert retention.sweep(NOW, batch_size=2, seconds=0) == 2
    assert remaining() == ["s0", "zeta/s9"]
    assert retention.sweep(NOW, batch_size=2, seconds=60) == 2
    assert remaining() == []


def sweep_or_write(index):
    """Process 0 runs retention; the others append to sessions of their own, which are never due."""
    if index == 0:
        return retention.sweep(timezone.now(), batch_size=5)
    for number in range(20):
        item_log.append(f"live-{index}", [user(f"message {number}")])
    return Session.objects.get(pk=f"live-{index}").item_count


@pytest.mark.django_db(transaction=True)
def test_writers_beside_a_retention_run_never_fail():
    keep_for(1)
    for number in range(200):
        sessions.ensure(agent="a", session_id=f"old-{number}")
    Session.objects.update(updated_at=timezone.now() - timedelta(days=2))
    for index in range(1, PROCESSES):
        sessions.ensure(agent="a", session_id=f"live-{index}")

    results = run_together(sweep_or_write)

    assert results == {0: 200, **dict.fromkeys(range(1, PROCESSES), 20)}
    assert remaining() == sorted(f"live-{index}" for index in range(1, PROCESSES))

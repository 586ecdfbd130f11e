"""Migration 0004 builds the search indexes over what was stored before it, and can be taken back."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from historyhub.history import sessions

BEFORE = ("history", "0003_approvers_group")
SEARCH = ("history", "0004_search_indexes")


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    return executor.loader.project_state(target).apps


def migrate_to_the_latest():
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_sessions_and_messages_stored_before_the_search_indexes_are_found_after_them():
    old = migrate(BEFORE)
    Session = old.get_model("history", "Session")
    TimelineEntry = old.get_model("history", "TimelineEntry")
    Session.objects.create(id="early-1", agent="oldAgent", name="Stored before the index", metadata_text="legacy")
    Session.objects.create(id="early-2", agent="oldAgent")
    TimelineEntry.objects.create(
        session_id="early-2",
        epoch=0,
        seq=1,
        order=1,
        key="message:1",
        type="message",
        created_at=timezone.now(),
        data="{}",
        text="An ocelot in the archive",
    )

    migrate(SEARCH)
    # The domain reads through today's models: the migrations after 0004 come too.
    migrate_to_the_latest()

    assert [session.id for session in sessions.search("default", q="before the index")] == ["early-1"]
    assert [session.id for session in sessions.search("default", q="LEGACY")] == ["early-1"]
    assert [session.id for session in sessions.search("default", q="ocelot")] == ["early-2"]
    sessions.delete("early-2", actor="tests")
    assert not sessions.search("default", q="ocelot").exists()


@pytest.mark.django_db(transaction=True)
def test_sessions_stay_searchable_across_every_later_migration_both_ways():
    """SQLite rebuilds history_session for some column changes, and a rebuilt table has lost its triggers."""
    migrate(SEARCH)
    migrate_to_the_latest()
    sessions.ensure(agent="supportAgent", session_id="after", metadata={"customer": "ocelot"})
    migrate(SEARCH)
    Session = migrate(SEARCH).get_model("history", "Session")
    Session.objects.create(id="between", agent="oldAgent", metadata_text="ocelot too")
    migrate_to_the_latest()

    sessions.ensure(agent="supportAgent", session_id="latest", metadata={"customer": "ocelot"})

    assert sorted(session.id for session in sessions.search("default", q="ocelot")) == ["after", "between", "latest"]

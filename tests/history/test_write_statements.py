"""What an append costs in SQL statements: pinned, so a statement added to every write fails here.

Transactional tests: the write's own transaction, as production runs it, not a savepoint inside the test's.
BEGIN and COMMIT are not counted (``tests.support.statements``).
"""

import pytest

from historyhub.history import item_log, sessions
from tests.support.items import assistant, function_call, function_output, user
from tests.support.statements import on_sqlite, statements

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def existing():
    sessions.ensure(agent="support", session_id="support-1")
    item_log.append("support-1", [user("Where is my order?"), assistant("Let me look.")])
    return "support-1"


def test_a_turn_of_messages_costs_five_statements(existing):
    with statements() as sent:
        item_log.append(existing, [user("And the refund?"), assistant("On its way."), user("Thanks.")])

    # The session's row lock; the log rows; the timeline rows (and SQLite's search index of their messages);
    # Insights' usage tallies of the hour (one upsert, history.usage_hours); the session's snapshot, whose UPDATE
    # also announces the change on PostgreSQL.
    assert len(sent) == on_sqlite(5, sqlite_more=1), sent


def test_a_turn_with_a_call_reads_the_call_s_entries_once(existing):
    with statements() as sent:
        item_log.append(
            existing, [function_call("call_1"), function_output("call_1"), assistant("22C and sunny in Paris.")]
        )

    # As a turn of messages, and one read of every timeline entry of the calls the batch names.
    assert len(sent) == on_sqlite(6, sqlite_more=1), sent


def test_a_batch_costs_what_a_turn_costs_whatever_its_size(existing):
    batch = [item for number in range(50) for item in (function_call(f"c{number}"), function_output(f"c{number}"))]

    with statements() as sent:
        item_log.append(existing, batch)

    # The outputs complete their calls in memory: no statement per item, per call or per entry.
    assert len(sent) == on_sqlite(6, sqlite_more=1), sent


def test_the_first_append_makes_its_session_without_a_savepoint():
    with statements() as sent:
        item_log.append("support-new", [user("Hello")], agent="support")

    # The look for the session's row; the row inserted unless a concurrent writer's is there (no savepoint
    # around it); the lock on it; then a turn's statements.
    assert not [sql for sql in sent if "SAVEPOINT" in sql.upper()], sent
    assert len(sent) == on_sqlite(7, sqlite_more=1), sent
    assert sessions.get("support-new").agent == "support"

"""Migration 0016 marks what an agent's items settled before it as reported, and nothing a person decided."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.support.migrations import migrate

VOTES = ("approvals", "0001_policies_and_votes")
BEFORE = [("history", "0015_client_action_text_measures"), VOTES]
MARKED = [("history", "0016_reported_and_imported_actions"), VOTES]


@pytest.mark.django_db(transaction=True)
def test_actions_the_agents_items_settled_are_marked_reported_and_decisions_are_left_alone():
    old = migrate(BEFORE)
    Session = old.get_model("history", "Session")
    ClientAction = old.get_model("history", "ClientAction")
    Vote = old.get_model("approvals", "Vote")
    Session.objects.create(id="early", project_id="default", session_id="early", agent="support")
    now = timezone.now()

    def action(call_id, resolved_by):
        return ClientAction.objects.create(
            session_id="early", call_id=call_id, name="pay", status="approved", created_at=now, resolved_by=resolved_by
        )

    action("by-items", "agent")
    decided = action("by-a-person", "agent")
    Vote.objects.create(action=decided, by="agent", decision="approve", at=now)
    action("by-ada", "ada")

    new = migrate(MARKED)

    rows = new.get_model("history", "ClientAction").objects.order_by("call_id")
    assert list(rows.values_list("call_id", "resolved_by", "reported")) == [
        ("by-a-person", "agent", False),
        ("by-ada", "ada", False),
        ("by-items", "agent (reported)", True),
    ]
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

"""Migration 0014 notes what existing client actions' texts hold, as ClientAction.measure_texts does for new ones:
the approvals page reads those notes instead of the whole values (docs/dashboard.md, "Large arguments and
descriptions")."""

import pytest
from django.utils import timezone

from historyhub.history.models import ClientAction
from tests.support.migrations import latest, migrate

BEFORE = [("history", "0014_client_action_undecidable")]


@pytest.mark.django_db(transaction=True)
def test_existing_actions_get_their_sizes_hidden_characters_and_destructive_words():
    old = migrate(BEFORE)
    now = timezone.now()
    session = old.get_model("history", "Session").objects.create(
        id="m-1", session_id="m-1", agent="a", project_id="default", created_at=now, updated_at=now
    )
    OldAction = old.get_model("history", "ClientAction")
    OldAction.objects.create(
        session=session, call_id="c1", name="send", arguments_json='{"to":"ana"}', description="", created_at=now
    )
    OldAction.objects.create(
        session=session,
        call_id="c2",
        name="drop_table",
        arguments_json='{"iban":"\u202e55","force":true}',
        description="Drop it é",
        created_at=now,
    )

    migrate(latest())

    plain, risky = ClientAction.objects.order_by("call_id")
    assert (plain.arguments_bytes, plain.description_bytes, plain.hides_characters) == (12, 0, False)
    assert plain.destructive_reasons == []
    assert (risky.arguments_bytes, risky.description_bytes, risky.hides_characters) == (29, 10, True)
    assert risky.destructive_reasons == ["drop", "force: true"]

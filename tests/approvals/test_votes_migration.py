"""The upgrade to votes by identity keeps every vote: each keeps its person or key, ``via`` is read from its label,
and where one person voted twice under two labels (the dashboard and "slack: <name>") the earlier vote keeps the
identity and the later one stays as a record that counts for nobody (docs/api.md, "A decider is a person or a
key")."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.approvals.deciders import UNKNOWN_MESSAGE
from historyhub.approvals.models import Vote
from historyhub.history import client_actions
from tests.support.actors import ApiClient
from tests.support.migrations import latest, migrate

BEFORE = [("approvals", "0001_policies_and_votes"), ("apikeys", "0003_key_project")]


@pytest.mark.django_db(transaction=True)
def test_every_vote_is_kept_with_its_identity_and_its_channel_read_from_its_label(django_user_model):
    ada, bob = django_user_model.objects.create_user("ada"), django_user_model.objects.create_user("bob")
    api_key, key = ApiKey.issue("bot", "write")
    ApiClient(key).post("sessions", {"sessionId": "s1", "agent": "support"})
    for call_id in ("c1", "c2"):
        client_actions.open_action("s1", call_id=call_id, name="pay", arguments={"amount": 1})
    action_pks = list(client_actions.listing("default").values_list("pk", flat=True))
    old = migrate(BEFORE)
    OldVote = old.get_model("approvals", "Vote")
    now = timezone.now()
    rows = [
        ("ada", ada.pk, None, action_pks[0], 0),
        ("slack: ada", ada.pk, None, action_pks[0], 1),
        ("slack: bob", bob.pk, None, action_pks[0], 2),
        ("api key: bot", None, api_key.pk, action_pks[0], 3),
        ("ada", ada.pk, None, action_pks[1], 4),
    ]
    for by, user, api_key_id, action, second in rows:
        OldVote.objects.create(
            action_id=action,
            by=by,
            user_id=user,
            api_key_id=api_key_id,
            decision="approve",
            arguments_json='{"amount": 1}',
            at=now + timedelta(seconds=second),
        )

    migrate(latest())

    kept = [(vote.by, vote.via, vote.user_id, vote.api_key_id) for vote in Vote.objects.order_by("at")]
    assert kept == [
        ("ada", "dashboard", ada.pk, None),
        ("slack: ada", "slack", None, None),
        ("slack: bob", "slack", bob.pk, None),
        ("api key: bot", "api", None, api_key.pk),
        ("ada", "dashboard", ada.pk, None),
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        Vote.objects.create(action_id=action_pks[0], by="ada again", user=ada, via="email", decision="reject", at=now)
    # The vote kept as a record counts for nobody.
    read = ApiClient(key).get("sessions/s1/client-actions/c1").json()
    assert (read["votes"][1]["by"], read["votes"][1]["counts"], read["votes"][1]["why"]) == (
        "slack: ada",
        False,
        UNKNOWN_MESSAGE,
    )

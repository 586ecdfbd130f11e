"""Opening a client action asks the rule approvals registers (history.governance): without one, nothing opens."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from historyhub.history import client_actions, governance, sessions
from historyhub.history.models import ClientAction


@pytest.mark.django_db
def test_an_action_opens_governed_by_the_registered_rule_and_not_at_all_without_one(monkeypatch):
    sessions.ensure(agent="support", session_id="s1")
    client_actions.open_action("s1", call_id="c1", name="issue_refund", arguments={"amount": 5})
    monkeypatch.setattr(governance, "_governor", None)

    with pytest.raises(ImproperlyConfigured):
        client_actions.open_action("s1", call_id="c2", name="issue_refund", arguments={"amount": 5})

    assert list(ClientAction.objects.values_list("call_id", flat=True)) == ["c1"]

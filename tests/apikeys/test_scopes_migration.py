"""Migration 0002 gives every existing write key the decide scope too, so nothing that worked stops working."""

import pytest

from historyhub.apikeys.models import ApiKey
from tests.support.migrations import latest, migrate

BEFORE = ("apikeys", "0001_initial")


@pytest.mark.django_db(transaction=True)
def test_existing_write_keys_may_decide_after_the_upgrade_and_it_says_so(capsys):
    old = migrate([BEFORE])
    OldKey = old.get_model("apikeys", "ApiKey")
    OldKey.objects.create(name="agent", scope="write", prefix="hh_a", key_hash="a" * 64)
    OldKey.objects.create(name="dashboard reader", scope="read", prefix="hh_b", key_hash="b" * 64)
    capsys.readouterr()

    migrate(latest())

    assert ApiKey.objects.get(name="agent").scopes == "write,decide"
    assert ApiKey.objects.get(name="dashboard reader").scopes == "read"
    printed = capsys.readouterr().out
    assert "1 existing write key now has the scopes write,decide" in printed


@pytest.mark.django_db(transaction=True)
def test_keys_issued_after_the_upgrade_do_not_decide():
    api_key, _ = ApiKey.issue("new agent")

    assert api_key.scopes == "write"
    assert not api_key.allows("decide")

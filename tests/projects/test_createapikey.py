"""``manage.py createapikey NAME [--scope SCOPES]``: the key printed once, with the scopes named."""

import pytest
from django.core.management import CommandError, call_command

from historyhub.apikeys.models import ApiKey


def create(*arguments, capsys):
    call_command("createapikey", *arguments)
    return capsys.readouterr().out.strip()


def test_a_key_gets_the_write_scope_by_default(db, capsys):
    key = create("agent", capsys=capsys)

    assert ApiKey.authenticate(key).scopes == "write"


def test_a_key_gets_the_scopes_listed(db, capsys):
    key = create("slack bot", "--scope", "decide, read", capsys=capsys)

    api_key = ApiKey.authenticate(key)
    assert api_key.scopes == "read,decide"
    assert api_key.allows("decide") and not api_key.allows("write")


@pytest.mark.parametrize("scope", ["everything", "", "read,owner"])
def test_an_unknown_scope_is_refused_and_no_key_made(db, scope):
    with pytest.raises(CommandError, match="scope"):
        call_command("createapikey", "bad", "--scope", scope)

    assert not ApiKey.objects.exists()

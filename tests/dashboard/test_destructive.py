"""Which actions look destructive, and why: one rule (historyhub/lib/destructive.py)."""

import pytest

from historyhub.history import jsonvalues
from historyhub.lib import destructive


def reasons(name, arguments=None):
    return destructive.reasons(name, jsonvalues.dumps(arguments or {}))


@pytest.mark.parametrize(
    "name, arguments, why",
    [
        ("delete_account", {"hard": True}, ["delete", "hard: true"]),
        ("deleteAccount", {}, ["delete"]),
        ("HardDelete", {}, ["delete"]),
        ("run_sql", {"query": "DROP TABLE users"}, ["drop"]),
        ("issue_refund", {"amount": 20}, ["refund"]),
        ("pay_invoice", {}, ["pay"]),
        ("move_money", {"kind": "wire transfer"}, ["transfer"]),
        ("cleanup", {"files": "removed", "force": True}, ["removed", "force: true"]),
        ("archive", {"isPermanent": True, "purge_after": 3}, ["purge", "permanent: true"]),
        ("del\u200bete_user", {}, ["delete"]),
    ],
)
def test_names_and_arguments_that_delete_remove_drop_destroy_or_move_money_are_called_out(name, arguments, why):
    assert reasons(name, arguments) == why


@pytest.mark.parametrize(
    "name, arguments",
    [
        ("send_email", {"to": "ada@example.com", "payload": {"x": 1}}),
        ("lookup_order", {"dropdown": "sizes", "display": True}),
        ("archive", {"hard": False, "force": "no"}),
        ("repay_schedule", {"prepaid": 3}),
    ],
)
def test_look_alikes_and_flags_that_are_not_true_are_not(name, arguments):
    assert reasons(name, arguments) == []


def test_every_word_starts_with_a_stem_the_quick_look_finds():
    assert [word for word in destructive.WORDS if not word.startswith(tuple(destructive.STEMS))] == []

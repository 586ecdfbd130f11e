"""Which actions look destructive, and why: one rule (historyhub/lib/destructive.py; docs/dashboard.md, "What looks
destructive")."""

import pytest

from historyhub.lib import destructive, jsonvalues


def reasons(name, arguments=None):
    return destructive.reasons(name, jsonvalues.dumps(arguments or {}))


@pytest.mark.parametrize(
    "name, arguments, why",
    [
        ("delete_account", {"hard": True}, ["delete", "hard: true"]),
        ("deleteAccount", {}, ["delete"]),
        ("HardDelete", {}, ["delete"]),
        ("run_sql", {"query": "DROP TABLE users"}, ["drop"]),
        ("cleanup", {"files": "removed", "force": True}, ["removed", "force: true"]),
        ("archive", {"isPermanent": True, "purge_after": 3}, ["purge", "permanent: true"]),
        ("del\u200bete_user", {}, ["delete"]),
        ("shred_documents", {}, ["shred"]),
    ],
)
def test_names_and_arguments_that_delete_remove_drop_or_destroy_are_called_out(name, arguments, why):
    assert reasons(name, arguments) == why


@pytest.mark.parametrize(
    "command, why",
    [
        ("rm -rf build/ && make release", ["rm"]),
        ("make release && rm -rf build/", ["rm"]),
        ("cd app; sudo rm old.log", ["rm"]),
        ("git push --force origin main", ["git push --force"]),
        ("git push -f", ["git push --force"]),
        ("git push origin +main", ["git push --force"]),
        ("git push --force-with-lease", ["git push --force"]),
        ("cd repo\ngit reset --hard HEAD~3", ["git reset --hard"]),
        ("git clean -fdx", ["git clean"]),
        ("git branch -D feature", ["git branch -D"]),
        ("mkfs.ext4 /dev/sdb1", ["mkfs"]),
        ("dd if=/dev/zero of=/dev/sda bs=1M", ["dd"]),
        ("git reset --hard && git push -f", ["git push --force", "git reset --hard"]),
    ],
)
def test_shell_commands_that_destroy_what_they_touch_are_called_out(command, why):
    assert reasons("run_shell", {"command": command}) == why


def test_rm_as_an_argument_list_is_called_out():
    assert reasons("run", {"argv": ["rm", "-rf", "build/"]}) == ["rm"]


@pytest.mark.parametrize(
    "command",
    [
        "make release",
        "git push origin main",
        "git reset --soft HEAD~1",
        "git branch -d merged",
        "git clean -n",
        "echo the form rm",
        "confirm rm -rf in the docs",
        "pseudorm -rf x",
        "git-lfs push --force",
        "ls -la build/",
    ],
)
def test_commands_that_keep_what_they_touch_and_rm_inside_words_or_sentences_are_not(command):
    assert reasons("run_shell", {"command": command}) == []


@pytest.mark.parametrize(
    "name, arguments, why",
    [
        ("send_payout", {"amount": 900}, ["payout"]),
        ("withdraw_funds", {"amount": 900}, ["withdraw"]),
        ("grant", {"action": "disbursement"}, ["disbursement"]),
        ("move_money", {"kind": "wire transfer"}, ["wire transfer"]),
        ("send_wireTransfer", {}, ["wire transfer"]),
        ("issue_refund", {"amount": 750, "irreversible": True}, ["irreversible: true"]),
    ],
)
def test_money_that_leaves_for_good_is_called_out(name, arguments, why):
    assert reasons(name, arguments) == why


@pytest.mark.parametrize(
    "name, arguments",
    [
        ("issue_refund", {"amount": 750, "currency": "USD"}),
        ("pay_invoice", {"invoice": 42}),
        ("transfer_ticket", {"to": "billing"}),
        ("charge_card", {"amount": 20}),
    ],
)
def test_a_refund_payment_or_transfer_is_not_called_out_for_its_word_alone(name, arguments):
    assert reasons(name, arguments) == []


@pytest.mark.parametrize(
    "name, arguments",
    [
        ("send_email", {"to": "ada@example.com", "payload": {"x": 1}}),
        ("lookup_order", {"dropdown": "sizes", "display": True}),
        ("archive", {"hard": False, "force": "no"}),
        ("repay_schedule", {"prepaid": 3}),
        ("rewire_circuit", {"wires": 3}),
    ],
)
def test_look_alikes_and_flags_that_are_not_true_are_not(name, arguments):
    assert reasons(name, arguments) == []


def test_every_word_starts_with_a_stem_the_quick_look_finds():
    assert [word for word in destructive.WORDS if not word.startswith(tuple(destructive.STEMS))] == []

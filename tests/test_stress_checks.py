"""The stress run's checks (bench/stress_checks.py) catch what they are there to catch.

A stress run that passes says something only if the same checks fail on a
broken database or a bad answer; here both are made by hand.
"""

import pytest

from bench import stress_checks
from historyhub.history import item_log
from historyhub.history.models import Item, Session

SESSION = "stress-s0"


def message(token):
    return {"id": token, "type": "message", "role": "user", "content": f"question {token}"}


def record(*batches, pops=()):
    return {
        "client": 0,
        "private": "stress-p0",
        "model": None,
        "batches": [
            {"session": SESSION, "tokens": tokens, "how": "keyed", "outcome": outcome, "ref": None}
            for tokens, outcome in batches
        ],
        "pops": [{"session": SESSION, "token": token, "known": True} for token in pops],
        "replaced": [],
        "operations": {},
        "keys": {},
        "actions": {"opened": [], "waiting": []},
    }


def failed(records):
    return {check.name for check in stress_checks.database_checks(records) if not check.passed}


@pytest.fixture
def stored(db):
    item_log.append(SESSION, [message("c0-1"), message("c0-2"), message("c0-3")])
    item_log.pop(SESSION)


def test_a_run_that_kept_everything_passes_every_check(stored):
    assert failed([record((["c0-1", "c0-2", "c0-3"], "acknowledged"), pops=["c0-3"])]) == set()


def test_an_acknowledged_item_that_is_not_stored_fails(stored):
    records = [record((["c0-1", "c0-2", "c0-3"], "acknowledged"), (["c0-4"], "acknowledged"), pops=["c0-3"])]

    assert "every acknowledged item is stored exactly once" in failed(records)


def test_an_item_stored_twice_fails(stored):
    item_log.append(SESSION, [message("c0-1")])

    assert "every acknowledged item is stored exactly once" in failed(
        [record((["c0-1", "c0-2", "c0-3"], "acknowledged"), pops=["c0-3"])]
    )


def test_half_of_a_batch_whose_answer_was_lost_fails(stored):
    item_log.append(SESSION, [message("c0-4")])
    records = [record((["c0-1", "c0-2", "c0-3"], "acknowledged"), (["c0-4", "c0-5"], "unknown"), pops=["c0-3"])]

    assert "no half batch: a batch is stored whole, in order, at consecutive positions, or not at all" in failed(
        records
    )


def test_a_counter_that_does_not_match_its_rows_fails(stored):
    Session.objects.filter(pk=SESSION).update(item_count=7)

    assert "counters match rows: itemCount, history count, waiting count, dense timeline ranks" in failed(
        [record((["c0-1", "c0-2", "c0-3"], "acknowledged"), pops=["c0-3"])]
    )


def test_a_popped_item_that_is_still_stored_fails(stored):
    Item.objects.filter(item_key="c0-2").delete()
    records = [record((["c0-1", "c0-2", "c0-3"], "acknowledged"), pops=["c0-1"])]

    assert "no item was popped or replaced twice, and none is stored after it was" in failed(records)


def test_a_500_an_html_answer_and_a_503_outside_the_restart_fail():
    faults = {
        "start": 0.0,
        "kill": {"at": 10.0, "grace": 1.0},
        "restart": {"began": 20.0, "up": 22.0, "window_end": 42.0},
    }
    requests = [
        {"op": "append", "method": "POST", "t0": 1.0, "t1": 1.1, "status": 500, "json": True},
        {"op": "read", "method": "GET", "t0": 2.0, "t1": 2.1, "status": 200, "json": False, "text": "<html>"},
        {"op": "read", "method": "GET", "t0": 3.0, "t1": 3.1, "status": 503, "json": True, "code": "x"},
        {"op": "read", "method": "GET", "t0": 5.0, "t1": 5.1, "status": None, "error": "ConnectionResetError"},
    ]
    records = [{"client": 0, "requests": requests, "violations": [], "unresolved": 0}]

    checks = stress_checks.http_checks(records, faults)

    assert [check.passed for check in checks] == [False, False, False, False, True, True]


FAULTS = {"start": 0.0, "kill": {"at": 10.0, "grace": 1.0}, "restart": {"began": 20.0, "up": 22.0, "window_end": 42.0}}


def answered(t0, status, body):
    return {"t0": t0, "t1": t0 + 0.1, "outcome": "answered", "status": status, "body": body}


def refused(t0, status, code):
    return answered(t0, status, {"error": {"code": code, "message": "…"}})


def withstood():
    """An attack the server withstood: attackers refused or dropped, probes answered (one cut by the SIGKILL)."""
    return {
        "slowBodies": [
            refused(1.0, 408, "request_timeout"),
            {"t0": 9.0, "t1": 10.2, "outcome": "dropped"},
            {"t0": 50.0, "t1": 60.0, "outcome": "held"},
        ],
        "oversized": [refused(2.0, 431, "headers_too_large"), {"t0": 3.0, "t1": 3.1, "outcome": "dropped"}],
        "probes": [
            answered(4.0, 200, {"status": "ok"}),
            {"t0": 10.0, "t1": 10.1, "outcome": "dropped"},
            answered(21.0, 503, {"status": "unavailable"}),
        ],
    }


def failed_attack_checks(attack):
    return [check.name for check in stress_checks.attack_checks(attack, FAULTS) if not check.passed]


def test_an_attack_the_server_withstood_passes_the_attack_checks():
    assert failed_attack_checks(withstood()) == []


def test_a_slow_body_or_an_oversized_head_that_was_served_fails():
    attack = withstood()
    attack["slowBodies"].append(refused(5.0, 400, "invalid_input"))
    attack["oversized"].append(answered(6.0, 200, {"items": []}))

    assert failed_attack_checks(attack) == [
        "every slow body was answered 408 or dropped, none served",
        "every oversized head was answered 431 or dropped",
    ]


def test_a_probe_unanswered_or_unavailable_outside_the_restart_fails():
    for probe in (
        {"t0": 45.0, "t1": 55.0, "outcome": "error", "error": "TimeoutError: timed out"},
        answered(50.0, 503, {"status": "unavailable"}),
        answered(6.0, 200, {"status": "ok", "worker": 123}),
    ):
        attack = withstood()
        attack["probes"].append(probe)

        assert failed_attack_checks(attack) == [
            "every /healthz probe was answered: ok, or 503 unavailable while PostgreSQL restarted"
        ], probe

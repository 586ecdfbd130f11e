"""Writers in separate processes, released together, against one session.

Each child opens its own database connection, as separate server workers
would; the database (row lock, unique constraints, SQLite's write lock) is
what keeps them apart.
"""

import json
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from historyhub.history import item_log, sessions, transactions
from historyhub.history.models import Item, Operation
from historyhub.lib.errors import SuffixMismatch
from tests.support.actors import ApiClient
from tests.support.processes import PROCESSES, run_together
from tests.support.readers import items_in_log, snapshot, wire_history

SHARED_IDS = [f"x{n}" for n in range(20)]


def item(item_id, index):
    return {"id": item_id, "type": "message", "role": "user", "content": f"{item_id} from process {index}"}


def append_overlapping_ids(index, skip_existing_ids=True):
    """Every process appends x0..x19 and ids of its own, in its own order, five at a time."""
    own = [f"p{index}-{n}" for n in range(10)]
    ids = SHARED_IDS + own
    random.Random(index).shuffle(ids)
    reported = {}
    for start in range(0, len(ids), 5):
        batch = ids[start : start + 5]
        inserted, _ = item_log.append(
            "ses_race", [item(item_id, index) for item_id in batch], skip_existing_ids=skip_existing_ids
        )
        reported.update(zip(batch, inserted, strict=True))
    item_log.append("ses_race", [{"type": "message", "role": "assistant", "content": f"no id, process {index}"}])
    return {"inserted": reported, "order": ids}


def append_keeping_everything(index):
    return append_overlapping_ids(index, skip_existing_ids=False)


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_keep_every_item_of_every_process():
    sessions.ensure(agent="supportAgent", session_id="ses_race")

    results = run_together(append_keeping_everything)

    rows = list(Item.objects.filter(session_id="ses_race").order_by("position"))
    assert len(rows) == PROCESSES * (len(SHARED_IDS) + 10 + 1)
    assert all(all(result["inserted"].values()) for result in results.values())
    stored = Counter(json.dumps(row.value, sort_keys=True) for row in rows)
    for index, result in results.items():
        for item_id in result["order"]:
            assert stored[json.dumps(item(item_id, index), sort_keys=True)] == 1
    assert len({row.position for row in rows}) == len(rows)
    assert snapshot("ses_race")["itemCount"] == len(rows)


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_skipping_existing_ids_store_each_id_once_and_lose_nothing():
    sessions.ensure(agent="supportAgent", session_id="ses_race")

    results = run_together(append_overlapping_ids)

    rows = list(Item.objects.filter(session_id="ses_race").order_by("position"))
    keys = [row.item_key for row in rows if row.item_key is not None]
    unique_ids = set(SHARED_IDS) | {f"p{index}-{n}" for index in range(PROCESSES) for n in range(10)}
    assert Counter(keys) == Counter(unique_ids)
    assert len(rows) == len(unique_ids) + PROCESSES
    positions = [row.position for row in rows]
    assert len(set(positions)) == len(positions)

    winners = {
        item_id: [index for index, result in results.items() if result["inserted"][item_id]] for item_id in SHARED_IDS
    }
    assert all(len(indexes) == 1 for indexes in winners.values()), winners
    stored = {row.item_key: row.value for row in rows if row.item_key is not None}
    for item_id, [winner] in winners.items():
        assert stored[item_id] == item(item_id, winner)
    for index, result in results.items():
        assert all(result["inserted"][f"p{index}-{n}"] for n in range(10))

    position_of = {row.item_key: row.position for row in rows if row.item_key is not None}
    for index, result in results.items():
        own_order = [item_id for item_id in result["order"] if item_id.startswith(f"p{index}-")]
        own_positions = [position_of[item_id] for item_id in own_order]
        assert own_positions == sorted(own_positions)

    assert snapshot("ses_race")["itemCount"] == len(rows)
    assert len(items_in_log("ses_race")) == len(rows)
    page = wire_history("ses_race", page=1, page_size=100)
    assert page["total"] == len(rows)
    assert [entry["id"] for entry in page["items"]] == [f"message:{position}" for position in positions[-100:]]


def apply_the_same_operation(index):
    return transactions.apply(
        "ses_race",
        "op_shared",
        {
            "type": "append_items",
            "items": [
                {"type": "message", "role": "assistant", "content": "applied once"},
                {"type": "message", "role": "assistant", "content": "and only once"},
            ],
        },
    )


@pytest.mark.django_db(transaction=True)
def test_one_operation_applied_by_many_processes_changes_history_once():
    sessions.ensure(agent="supportAgent", session_id="ses_race")

    results = run_together(apply_the_same_operation)

    assert sorted(results.values()) == [False] * (PROCESSES - 1) + [True]
    assert items_in_log("ses_race") == [
        {"type": "message", "role": "assistant", "content": "applied once"},
        {"type": "message", "role": "assistant", "content": "and only once"},
    ]
    assert Operation.objects.filter(session_id="ses_race").count() == 1
    assert snapshot("ses_race")["itemCount"] == 2


def replace_the_newest_item(index):
    try:
        return transactions.apply(
            "ses_race",
            f"op_{index}",
            {
                "type": "replace_suffix",
                "expectedSuffix": [{"type": "message", "role": "assistant", "content": "draft"}],
                "replacement": [{"type": "message", "role": "assistant", "content": f"final from {index}"}],
            },
        )
    except SuffixMismatch:
        return "suffix_mismatch"


@pytest.mark.django_db(transaction=True)
def test_only_one_of_many_processes_replaces_the_same_suffix():
    item_log.append(
        "ses_race",
        [
            {"type": "message", "role": "user", "content": "question"},
            {"type": "message", "role": "assistant", "content": "draft"},
        ],
    )

    results = run_together(replace_the_newest_item)

    [winner] = [index for index, result in results.items() if result is True]
    assert sorted(result for result in results.values() if result is not True) == ["suffix_mismatch"] * (PROCESSES - 1)
    assert items_in_log("ses_race") == [
        {"type": "message", "role": "user", "content": "question"},
        {"type": "message", "role": "assistant", "content": f"final from {winner}"},
    ]
    assert list(Operation.objects.filter(session_id="ses_race").values_list("operation_id", flat=True)) == [
        f"op_{winner}"
    ]


def append_to_a_missing_session(index):
    return item_log.append("ses_new", [item(f"p{index}", index)], agent=f"agent{index}")


@pytest.mark.django_db(transaction=True)
def test_processes_appending_to_a_missing_session_create_it_once():
    results = run_together(append_to_a_missing_session)

    assert all(inserted == [True] for inserted, _ in results.values())
    assert sorted(item_count for _, item_count in results.values()) == list(range(1, PROCESSES + 1))
    assert sessions.get("ses_new").agent in {f"agent{index}" for index in range(PROCESSES)}
    assert snapshot("ses_new")["itemCount"] == PROCESSES


def _requests_in_threads(calls, threads=6):
    """Each call (a function of nothing returning a response) in a pool of threads, each with its own database
    connection, as a server's threads have; the answers' status codes."""

    def run(call):
        try:
            return call().status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(run, calls))


@pytest.mark.django_db(transaction=True)
def test_injections_racing_a_clear_of_the_items_each_answer_201_or_204(write_key):
    """POST …/injections and DELETE …/items at once on one session, 300 requests: the injection reads what it
    stored under the session's lock, so a clear between its commit and its answer cannot make it a 500."""
    api = ApiClient(write_key)
    api.client = Client(raise_request_exception=False)
    assert api.post("sessions", {"sessionId": "race-1", "agent": "supportAgent"}).status_code == 201

    def inject(n):
        return lambda: api.post("sessions/race-1/injections", {"id": f"inj-{n}", "content": f"note {n}"})

    def clear():
        return api.delete("sessions/race-1/items")

    calls = [inject(n) if n % 2 == 0 else clear for n in range(300)]
    statuses = _requests_in_threads(calls)

    assert Counter(statuses) == {201: 150, 204: 150}
    entries = api.get("sessions/race-1/entries").json()["entries"]
    assert all(entry["kind"] == "injection" for entry in entries)


@pytest.mark.django_db(transaction=True)
def test_concurrent_injections_each_answer_their_own_entry(write_key):
    api = ApiClient(write_key)
    api.client = Client(raise_request_exception=False)
    assert api.post("sessions", {"sessionId": "race-2", "agent": "supportAgent"}).status_code == 201
    answers = {}

    def inject(n):
        def call():
            answers[n] = api.post("sessions/race-2/injections", {"content": f"note {n}"})
            return answers[n]

        return call

    assert set(_requests_in_threads([inject(n) for n in range(60)])) == {201}
    assert all(answer.json()["content"] == f"note {n}" for n, answer in answers.items())
    assert len({answer.json()["id"] for answer in answers.values()}) == 60

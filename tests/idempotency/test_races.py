"""Repeats that race across processes, and a retry over real HTTP after the answer was lost."""

import json
import urllib.request

import pytest

from historyhub.apikeys.models import ApiKey
from historyhub.idempotency.models import IdempotencyRecord
from tests.support.actors import ApiClient, KeyedApiClient
from tests.support.processes import PROCESSES, run_together
from tests.support.readers import items_via_api

pytestmark = pytest.mark.django_db(transaction=True)

ITEMS = {
    "items": [
        {"type": "message", "role": "assistant", "content": "applied once"},
        {"type": "message", "role": "assistant", "content": "and only once"},
    ]
}
OTHER_ITEMS = {"items": [{"type": "message", "role": "assistant", "content": "a different request"}]}


def post_with_one_key(write_key, body_of):
    """work(index) for run_together: POST body_of(index) with Idempotency-Key race-1; the answer as it arrived."""

    def work(index):
        response = KeyedApiClient(write_key, "race-1").post("sessions/race/items", body_of(index))
        return response.status_code, response.content

    return work


def test_processes_racing_one_key_apply_the_request_once_and_all_get_its_answer():
    write_key = ApiKey.issue("racers", "write")[1]

    answers = run_together(post_with_one_key(write_key, lambda index: ITEMS))

    assert len(set(answers.values())) == 1, answers
    [(status, content)] = set(answers.values())
    assert (status, json.loads(content)) == (200, {"inserted": [True, True], "itemCount": 2})
    assert items_via_api(ApiClient(write_key), "race") == ITEMS["items"]
    assert IdempotencyRecord.objects.count() == 1


def test_processes_racing_one_key_with_two_bodies_apply_one_and_refuse_the_other():
    write_key = ApiKey.issue("racers", "write")[1]

    answers = run_together(post_with_one_key(write_key, lambda index: ITEMS if index % 2 else OTHER_ITEMS))

    stored = items_via_api(ApiClient(write_key), "race")
    winner = 1 if stored == ITEMS["items"] else 0
    assert stored == (ITEMS if winner else OTHER_ITEMS)["items"]
    applied = {answers[index] for index in range(PROCESSES) if index % 2 == winner}
    refused = {answers[index] for index in range(PROCESSES) if index % 2 != winner}
    assert len(applied) == 1 and next(iter(applied))[0] == 200
    assert [(status, json.loads(content)["error"]["code"]) for status, content in refused] == [
        (409, "idempotency_key_reused")
    ]


def send(url, key, idempotency_key, body):
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            "Idempotency-Key": idempotency_key,
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, dict(response.headers), response.read()


def test_a_retry_over_http_after_the_answer_was_lost_stores_nothing_twice(live_server):
    write_key = ApiKey.issue("retrying agent", "write")[1]
    url = f"{live_server.url}/api/v1/sessions/retried/items"

    # The agent never sees this answer (the connection dropped on the way back); it sends the request again.
    lost_status, _, lost_body = send(url, write_key, "turn-7", ITEMS)
    status, headers, body = send(url, write_key, "turn-7", ITEMS)

    assert (status, body) == (lost_status, lost_body) == (200, b'{"inserted": [true, true], "itemCount": 2}')
    assert headers["Idempotent-Replayed"] == "true"
    assert items_via_api(ApiClient(write_key), "retried") == ITEMS["items"]

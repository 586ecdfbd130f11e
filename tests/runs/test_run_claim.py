"""POST /sessions/{sessionId}/runs/{runId}/claim: one resumer takes a ready run."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from historyhub.runs import parking
from historyhub.runs.models import Run
from tests.support.readers import assert_error
from tests.support.runs import STATE, decide, let_expire


@pytest.fixture
def ready_run(api, session_id, run_path):
    decide(session_id, "call_a")
    decide(session_id, "call_b")
    return run_path


def test_a_claim_gives_the_run_with_its_state_for_a_lease(api, ready_run):
    before = timezone.now()

    response = api.post(f"{ready_run}/claim", {"leaseSeconds": 120})

    assert response.status_code == 200
    run = response.json()
    assert (run["state"], run["ready"], run["claimedBy"]) == (STATE, False, "api key: tests (write)")
    claimed_until = Run.objects.get(run_id="run_1").claimed_until
    assert before + timedelta(seconds=119) < claimed_until <= timezone.now() + timedelta(seconds=120)


def test_a_second_claim_while_the_lease_holds_is_refused(api, ready_run):
    api.post(f"{ready_run}/claim", {})

    assert_error(api.post(f"{ready_run}/claim", {}), 409, "run_claimed")


def test_a_run_whose_lease_ended_can_be_claimed_again(api, ready_run):
    api.post(f"{ready_run}/claim", {})
    Run.objects.update(claimed_until=timezone.now() - timedelta(seconds=1))

    assert api.post(f"{ready_run}/claim", {}).status_code == 200


def test_a_run_still_waiting_cannot_be_claimed(api, session_id, run_path):
    decide(session_id, "call_a")

    assert_error(
        api.post(f"{run_path}/claim", {}), 409, "run_not_ready", "Run 'run_1' still waits for a decision on 'call_b'."
    )


def test_an_expired_action_does_not_hold_a_claim_back(api, session_id, run_path):
    decide(session_id, "call_a")
    let_expire(session_id, "call_b", timezone.now() - timedelta(seconds=1))

    assert api.post(f"{run_path}/claim", {}).status_code == 200


def test_an_unknown_run_cannot_be_claimed(api, session_id):
    assert_error(api.post(f"sessions/{session_id}/runs/nope/claim", {}), 404, "not_found")


@pytest.mark.parametrize("lease", [0, 86401])
def test_a_lease_is_between_a_second_and_a_day(api, ready_run, lease):
    assert_error(api.post(f"{ready_run}/claim", {"leaseSeconds": lease}), 400, "invalid_input")


@pytest.mark.django_db(transaction=True)
def test_of_resumers_claiming_at_once_exactly_one_gets_the_run(api, ready_run, session_id):
    outcomes, start = [], threading.Barrier(8)

    def resumer(number):
        try:
            start.wait()
            parking.claim(session_id, "run_1", claimed_by=f"resumer {number}")
            outcomes.append("claimed")
        except parking.RunClaimed:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=resumer, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["claimed"] + ["refused"] * 7

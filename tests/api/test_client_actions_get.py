import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection

from historyhub import live
from historyhub.history.models import ClientAction
from tests.support.actors import ApiClient
from tests.support.readers import assert_error
from tests.support.waiting import until

# A waiting read's ?wait: one that answers in under a quarter of it was woken, not timed out.
WAIT = 20
# A wait whose end is far from the few seconds a decision takes on a loaded machine.
LONG_WAIT = 60


def open_action(api, session_id, call_id="c1", **fields):
    response = api.post(
        f"sessions/{session_id}/client-actions", {"callId": call_id, "name": "send_mail", "arguments": {}, **fields}
    )
    assert response.status_code == 201


def test_it_returns_the_action(api, session_id):
    open_action(api, session_id)

    response = api.get(f"sessions/{session_id}/client-actions/c1")

    assert response.status_code == 200
    assert (response.json()["callId"], response.json()["status"]) == ("c1", "waiting")


def test_it_answers_404_for_an_unknown_action_or_session(api, session_id):
    assert_error(api.get(f"sessions/{session_id}/client-actions/nope"), 404, "not_found")
    assert_error(api.get("sessions/nobody/client-actions/c1"), 404, "session_not_found")


def test_an_overdue_action_reads_as_expired_though_no_one_wrote_it(api, session_id):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        open_action(api, session_id, expiresAt="2026-12-01T12:05:00Z")

    with time_machine.travel("2026-12-01T12:05:00Z", tick=False):
        assert api.get(f"sessions/{session_id}/client-actions/c1").json()["status"] == "expired"
        snapshot = api.get(f"sessions/{session_id}").json()
        assert (snapshot["runStatus"], snapshot["pendingClientActions"]) == ("running", [])
        [card] = api.get(f"sessions/{session_id}/history").json()["items"]
        assert (card["status"], card["summary"]) == ("failed", "send mail expired.")
        assert [action["callId"] for action in api.get("client-actions", status="expired").json()["items"]] == ["c1"]
        assert api.get("client-actions", status="waiting").json()["total"] == 0

    assert ClientAction.objects.get(call_id="c1").status == "waiting"


@pytest.mark.parametrize("wait", [-1, 61, "soon", "nan"])
def test_it_rejects_a_wait_outside_0_to_60_seconds(api, session_id, wait):
    open_action(api, session_id)

    message = assert_error(api.get(f"sessions/{session_id}/client-actions/c1", wait=wait), 400, "invalid_input")

    assert message.startswith("wait: ")


def test_a_wait_that_runs_out_returns_the_action_still_waiting(api, session_id):
    open_action(api, session_id)

    response = api.get(f"sessions/{session_id}/client-actions/c1", wait=0.3)

    assert response.json()["status"] == "waiting"


def test_a_wait_on_an_unknown_action_answers_404(api, session_id):
    assert_error(api.get(f"sessions/{session_id}/client-actions/nope", wait=30), 404, "not_found")


@pytest.mark.django_db(transaction=True)
def test_a_waiting_read_returns_as_soon_as_the_action_is_decided_elsewhere(api, session_id, decide_key):
    open_action(api, session_id)
    decisions = []
    before = live.hub.subscriber_count()

    def decide_elsewhere():
        try:
            until(lambda: live.hub.subscriber_count() > before, message="the read's wait")
            decisions.append(
                ApiClient(decide_key)
                .post(f"sessions/{session_id}/client-actions/c1/decision", {"decision": "approve"})
                .status_code
            )
        finally:
            connection.close()

    decider = threading.Thread(target=decide_elsewhere)
    decider.start()
    started = time.monotonic()
    response = api.get(f"sessions/{session_id}/client-actions/c1", wait=LONG_WAIT)
    elapsed = time.monotonic() - started
    decider.join()

    assert decisions == [200]
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["decision"]) == ("approved", "approve")
    # Woken by the decision, not answered at the wait's end (which reads the decision too): far from either
    # end on a busy machine, where the decision itself can take seconds.
    assert elapsed < LONG_WAIT / 2


@pytest.mark.django_db(transaction=True)
def test_a_waiting_read_returns_when_the_action_expires(api, session_id):
    soon = (datetime.now(UTC) + timedelta(seconds=0.5)).isoformat()
    open_action(api, session_id, expiresAt=soon)

    started = time.monotonic()
    response = api.get(f"sessions/{session_id}/client-actions/c1", wait=LONG_WAIT)

    assert response.json()["status"] == "expired"
    assert time.monotonic() - started < LONG_WAIT / 2


@pytest.mark.django_db(transaction=True)
def test_a_key_holding_as_many_waits_as_it_may_is_told_to_ask_again(api, session_id, read_key, settings):
    settings.HISTORYHUB_MAX_WAITS_PER_KEY = 1
    open_action(api, session_id)
    before = live.hub.subscriber_count()
    held = []

    def hold_a_wait():
        try:
            held.append(api.get(f"sessions/{session_id}/client-actions/c1", wait=2).status_code)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_a_wait)
    holder.start()
    until(lambda: live.hub.subscriber_count() > before, message="the first wait")

    second = api.get(f"sessions/{session_id}/client-actions/c1", wait=5)
    another_key = ApiClient(read_key).get(f"sessions/{session_id}/client-actions/c1", wait=0.1)
    holder.join()

    assert_error(second, 429, "rate_limited")
    assert second["Retry-After"] == "1"
    assert another_key.status_code == 200
    assert held == [200]

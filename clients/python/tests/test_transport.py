"""The rules both clients share: path segments, which requests are retried, and how long to wait."""

from datetime import UTC, datetime

from historyhub_client import HistoryHubError, RetryPolicy
from historyhub_client.transport import Request, retry_after_seconds, segment

UNAVAILABLE = HistoryHubError(503, "service_unavailable", "The database cannot be reached.")


def test_a_path_segment_encodes_every_character_that_could_change_the_path():
    assert segment("call/1") == "call%2F1"
    assert segment("50% off") == "50%25%20off"
    assert segment("ünï") == "%C3%BCn%C3%AF"
    assert segment("..") == "%2E%2E"
    assert segment(".") == "%2E"
    assert segment("a.b") == "a.b"


def test_reads_and_keyed_writes_are_retryable_and_a_bare_write_is_not():
    assert Request.read("sessions").retryable
    assert Request.write("POST", "sessions", {}).retryable
    assert not Request("POST", "sessions", {}).retryable


def test_each_write_gets_its_own_idempotency_key_and_a_read_none():
    first, second = Request.write("POST", "x", {}), Request.write("POST", "x", {})
    assert first.headers()["Idempotency-Key"] != second.headers()["Idempotency-Key"]
    assert "Idempotency-Key" not in Request.read("x").headers()


def test_backoff_grows_and_stops_at_the_cap():
    policy = RetryPolicy(attempts=20, backoff=1, max_delay=8)
    request = Request.read("x")
    delays = [policy.delay(request, attempt, UNAVAILABLE) for attempt in range(6)]
    assert delays[0] <= 1 and 4 <= delays[3] <= 8 and 4 <= delays[5] <= 8


def test_retry_after_is_waited_out_and_one_beyond_the_cap_is_not_retried():
    policy = RetryPolicy(backoff=0.01, max_delay=30)
    request = Request.read("x")
    assert policy.delay(request, 0, UNAVAILABLE, retry_after=2.5) == 2.5
    assert policy.delay(request, 0, UNAVAILABLE, retry_after=31) is None


def test_client_errors_are_final_but_rate_limits_and_requests_in_progress_are_not():
    policy, request = RetryPolicy(), Request.write("POST", "x", {})
    assert policy.delay(request, 0, HistoryHubError(400, "invalid_input", "")) is None
    assert policy.delay(request, 0, HistoryHubError(409, "session_conflict", "")) is None
    assert policy.delay(request, 0, HistoryHubError(429, "rate_limited", "")) is not None
    assert policy.delay(request, 0, HistoryHubError(409, "request_in_progress", "")) is not None
    assert policy.delay(request, 0, HistoryHubError(None, "connection_failed", "")) is not None


def test_the_last_attempt_is_not_followed_by_another():
    policy = RetryPolicy(attempts=3)
    assert policy.delay(Request.read("x"), 1, UNAVAILABLE) is not None
    assert policy.delay(Request.read("x"), 2, UNAVAILABLE) is None


def test_retry_after_reads_seconds_and_http_dates():
    now = datetime(2026, 9, 28, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("7") == 7
    assert retry_after_seconds("Mon, 28 Sep 2026 12:00:30 GMT", now=now) == 30
    assert retry_after_seconds("Mon, 28 Sep 2026 11:00:00 GMT", now=now) == 0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None

"""Per-key rate limits (API_RATE_LIMITS): 429 rate_limited with Retry-After, per key, every rate at once."""

from django.core.cache.backends.redis import RedisCache

from tests.support.readers import assert_error
from tests.support.servers import free_port


def test_a_key_over_its_rate_gets_429_rate_limited_with_retry_after(api, settings):
    settings.HISTORYHUB_API_RATE_LIMITS = ["3/min"]
    assert [api.get("sessions").status_code for _ in range(3)] == [200] * 3

    response = api.get("sessions")

    assert_error(response, 429, "rate_limited")
    assert 1 <= int(response["Retry-After"]) <= 60
    assert response.json()["error"]["message"] == (
        f"This API key made too many requests; retry in {response['Retry-After']} seconds."
    )


def test_writes_and_reads_count_against_the_same_limit_and_a_refused_write_changes_nothing(api, settings):
    settings.HISTORYHUB_API_RATE_LIMITS = ["2/min"]
    assert api.post("sessions", {"sessionId": "one", "agent": "a"}).status_code == 201
    assert api.get("sessions/one").status_code == 200

    assert_error(api.post("sessions", {"sessionId": "two", "agent": "a"}), 429, "rate_limited")
    settings.HISTORYHUB_API_RATE_LIMITS = []
    assert [session["sessionId"] for session in api.get("sessions").json()["items"]] == ["one"]


def test_each_key_has_its_own_count(api, read_api, settings):
    settings.HISTORYHUB_API_RATE_LIMITS = ["2/min"]
    assert [api.get("sessions").status_code for _ in range(3)] == [200, 200, 429]

    assert [read_api.get("sessions").status_code for _ in range(3)] == [200, 200, 429]


def test_every_rate_applies_and_the_longest_wait_is_the_one_reported(api, settings):
    settings.HISTORYHUB_API_RATE_LIMITS = ["100/s", "2/hour"]
    assert [api.get("sessions").status_code for _ in range(2)] == [200, 200]

    response = api.get("sessions")

    assert_error(response, 429, "rate_limited")
    assert 60 < int(response["Retry-After"]) <= 3600


def test_requests_without_a_valid_key_are_refused_before_they_are_counted(api, anonymous, settings):
    settings.HISTORYHUB_API_RATE_LIMITS = ["2/min"]
    for _ in range(5):
        assert_error(anonymous.get("sessions"), 401, "unauthorized")

    assert [api.get("sessions").status_code for _ in range(3)] == [200, 200, 429]


def test_no_rates_means_no_limit(api, settings):
    settings.HISTORYHUB_API_RATE_LIMITS = []

    assert {api.get("sessions").status_code for _ in range(50)} == {200}


def test_the_default_rates_let_an_agent_make_hundreds_of_calls_in_a_burst(api):
    assert {api.get("sessions").status_code for _ in range(300)} == {200}


def test_a_cache_that_cannot_be_reached_lets_requests_through_and_says_so(api, settings, caplog):
    settings.HISTORYHUB_API_RATE_LIMITS = ["1/min"]
    settings.CACHES = {
        "default": {
            "BACKEND": f"{RedisCache.__module__}.{RedisCache.__name__}",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }

    assert [api.get("sessions").status_code for _ in range(3)] == [200] * 3
    assert "API rate limits skipped, the cache failed: ConnectionError" in caplog.text

"""The limits' settings come from the environment, and a value that cannot be read stops the start."""

import base64
import runpy
import stat
from datetime import timedelta

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from tests.support.servers import ROOT

SETTINGS = ROOT / "historyhub" / "settings.py"
POSTGRES = "postgres://hh@db.example.com:5432/historyhub"
VARIABLES = [
    "DATABASE_URL",
    "DATABASE_POOL_SIZE",
    "DATABASE_POOL_TIMEOUT",
    "DATABASE_POOL_DISABLED",
    "DATABASE_CONNECT_TIMEOUT",
    "CACHE_URL",
    "API_RATE_LIMITS",
    "LOGIN_FAILURE_LIMIT",
    "LOGIN_COOLOFF_MINUTES",
    "BEHIND_HTTPS_PROXY",
    "FORWARDED_ALLOW_IPS",
    "REQUEST_HEADER_TIMEOUT",
    "REQUEST_BODY_TIMEOUT",
    "HISTORYHUB_MAX_HEADER_BYTES",
    "MEDIA_ALLOWED_HOSTS",
]


def settings_with(monkeypatch, **environment):
    """historyhub/settings.py read afresh under this environment."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS))


def refused(monkeypatch, **environment):
    with pytest.raises(ImproperlyConfigured) as refusal:
        settings_with(monkeypatch, **environment)
    return str(refusal.value)


def test_postgresql_gets_the_checking_backend_a_bounded_pool_a_connect_timeout_and_no_jit(monkeypatch):
    database = settings_with(monkeypatch, DATABASE_URL=POSTGRES)["DATABASES"]["default"]
    assert database["ENGINE"] == "historyhub.postgresql"
    assert database["OPTIONS"] == {
        "connect_timeout": 5,
        "options": "-c jit=off",
        "pool": {"min_size": 1, "max_size": 10, "timeout": 5, "reconnect_timeout": 10},
    }


@pytest.mark.django_db
def test_postgresql_connections_compile_no_query_with_jit():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's JIT")
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone() == ("off",)


def test_the_database_timeouts_come_from_the_environment(monkeypatch):
    database = settings_with(
        monkeypatch, DATABASE_URL=POSTGRES, DATABASE_POOL_TIMEOUT="2", DATABASE_CONNECT_TIMEOUT="3"
    )["DATABASES"]["default"]
    assert database["OPTIONS"]["connect_timeout"] == 3 and database["OPTIONS"]["pool"]["timeout"] == 2


def test_login_throttling_and_rate_limits_have_generous_defaults(monkeypatch):
    settings = settings_with(monkeypatch)
    assert settings["AXES_FAILURE_LIMIT"] == 5 and settings["AXES_COOLOFF_TIME"] == timedelta(minutes=15)
    assert settings["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"]]
    assert settings["HISTORYHUB_API_RATE_LIMITS"] == ["1000/10s"]


def test_login_throttling_and_rate_limits_come_from_the_environment(monkeypatch):
    settings = settings_with(
        monkeypatch, LOGIN_FAILURE_LIMIT="3", LOGIN_COOLOFF_MINUTES="60", API_RATE_LIMITS="10/s, 500/hour"
    )
    assert settings["AXES_FAILURE_LIMIT"] == 3 and settings["AXES_COOLOFF_TIME"] == timedelta(hours=1)
    assert settings["HISTORYHUB_API_RATE_LIMITS"] == ["10/s", "500/hour"]
    assert settings_with(monkeypatch, API_RATE_LIMITS="")["HISTORYHUB_API_RATE_LIMITS"] == []


def test_the_cache_is_per_process_memory_unless_cache_url_names_a_redis(monkeypatch):
    cache = settings_with(monkeypatch)["CACHES"]["default"]
    assert cache == {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    cache = settings_with(monkeypatch, CACHE_URL="redis://cache:6379/2")["CACHES"]["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://cache:6379/2"


def test_forwarded_headers_are_trusted_from_nobody_unless_a_proxy_is_in_front(monkeypatch):
    assert settings_with(monkeypatch)["FORWARDED_ALLOW_IPS"] == []
    assert settings_with(monkeypatch, BEHIND_HTTPS_PROXY="True")["FORWARDED_ALLOW_IPS"] == ["127.0.0.1"]
    proxies = settings_with(monkeypatch, BEHIND_HTTPS_PROXY="True", FORWARDED_ALLOW_IPS="10.0.0.0/8, ::1")
    assert proxies["FORWARDED_ALLOW_IPS"] == ["10.0.0.0/8", "::1"]


def test_request_heads_and_bodies_have_their_limits_by_default(monkeypatch):
    settings = settings_with(monkeypatch)
    assert (settings["REQUEST_HEADER_TIMEOUT"], settings["REQUEST_BODY_TIMEOUT"]) == (10, 30)
    assert settings["HISTORYHUB_MAX_HEADER_BYTES"] == 65536


def test_no_host_may_show_media_unless_the_operator_names_it(monkeypatch):
    assert settings_with(monkeypatch)["MEDIA_ALLOWED_HOSTS"] == []
    allowed = settings_with(monkeypatch, MEDIA_ALLOWED_HOSTS="Media.Example.com, *.cdn.example.com,localhost:8080")
    assert allowed["MEDIA_ALLOWED_HOSTS"] == ["media.example.com", "*.cdn.example.com", "localhost:8080"]


@pytest.mark.parametrize(
    "environment, message",
    [
        (
            {"FORWARDED_ALLOW_IPS": "127.0.0.1"},
            "FORWARDED_ALLOW_IPS names a proxy: set BEHIND_HTTPS_PROXY=True too, or leave it empty",
        ),
        (
            {"BEHIND_HTTPS_PROXY": "True", "FORWARDED_ALLOW_IPS": "proxy.internal"},
            "FORWARDED_ALLOW_IPS holds addresses or networks, not 'proxy.internal'",
        ),
        ({"REQUEST_BODY_TIMEOUT": "0"}, "REQUEST_BODY_TIMEOUT must be at least 1, not '0'"),
        ({"HISTORYHUB_MAX_HEADER_BYTES": "100"}, "HISTORYHUB_MAX_HEADER_BYTES must be at least 1024, not '100'"),
        ({"MEDIA_ALLOWED_HOSTS": "https://media.example.com"}, "not 'https://media.example.com'"),
        ({"MEDIA_ALLOWED_HOSTS": "'self' *"}, "host names like media.example.com, not \"'self' *\""),
        ({"DATABASE_POOL_TIMEOUT": "0"}, "DATABASE_POOL_TIMEOUT must be at least 1, not '0'"),
        ({"DATABASE_CONNECT_TIMEOUT": "soon"}, "DATABASE_CONNECT_TIMEOUT must be a whole number, not 'soon'"),
        ({"LOGIN_FAILURE_LIMIT": "0"}, "LOGIN_FAILURE_LIMIT must be at least 1, not '0'"),
        ({"LOGIN_COOLOFF_MINUTES": "-5"}, "LOGIN_COOLOFF_MINUTES must be at least 1, not '-5'"),
        ({"CACHE_URL": "memcached://cache:11211"}, "CACHE_URL must be a redis:// URL, not 'memcached://cache:11211'"),
        ({"API_RATE_LIMITS": "100"}, "API_RATE_LIMITS holds rates like 100/s or 3000/min, not '100'"),
        ({"API_RATE_LIMITS": "10/s,1/fortnight"}, "not '1/fortnight'"),
        ({"API_RATE_LIMITS": "0/s"}, "not '0/s'"),
        ({"API_RATE_LIMITS": "5/0s"}, "not '5/0s'"),
    ],
)
def test_a_value_that_cannot_be_read_stops_the_start(monkeypatch, environment, message):
    assert message in refused(monkeypatch, DATABASE_URL=POSTGRES, **environment)


# Encryption at rest (docs/configuration.md) ---------------------------------------------------------------

KEY = base64.urlsafe_b64encode(b"k" * 32).decode()
OTHER_KEY = base64.urlsafe_b64encode(b"o" * 32).decode()


def test_field_encryption_keys_are_read_in_their_order_the_first_being_the_one_that_encrypts(monkeypatch):
    keys = settings_with(monkeypatch, FIELD_ENCRYPTION_KEYS=f" {KEY}, {OTHER_KEY} ")["FIELD_ENCRYPTION_KEYS"]
    assert keys == [KEY, OTHER_KEY]


@pytest.mark.parametrize(
    "keys, which",
    [
        ("change-me", "key 1 of 1"),
        (f"{KEY},{base64.urlsafe_b64encode(b'k' * 31).decode()}", "key 2 of 2"),
        (base64.urlsafe_b64encode(b"k" * 33).decode(), "key 1 of 1"),
        # Url-safe base64 without its padding, and a key written in hex, as generators of other kinds make them.
        (f"{OTHER_KEY},{KEY.rstrip('=')},{KEY}", "key 2 of 3"),
        ((b"k" * 32).hex(), "key 1 of 1"),
    ],
)
def test_a_field_encryption_key_that_is_not_a_fernet_key_stops_the_start_and_is_never_echoed(monkeypatch, keys, which):
    message = refused(monkeypatch, FIELD_ENCRYPTION_KEYS=keys)
    assert message == (
        "FIELD_ENCRYPTION_KEYS holds Fernet keys (32 url-safe base64-encoded bytes each), comma separated: "
        f"{which} is not one"
    )
    assert not any(key.rstrip("=") in message for key in keys.split(","))


def test_without_debug_field_encryption_keys_are_required(monkeypatch, tmp_path):
    monkeypatch.delenv("FIELD_ENCRYPTION_KEYS", raising=False)
    message = refused(monkeypatch, DEBUG="False", DATA_DIR=str(tmp_path))
    assert message.startswith("FIELD_ENCRYPTION_KEYS is required when DEBUG is off")
    assert not (tmp_path / "field-encryption-key").exists()


def test_in_development_without_keys_one_is_made_once_in_the_data_directory_and_kept(monkeypatch, tmp_path):
    monkeypatch.delenv("FIELD_ENCRYPTION_KEYS", raising=False)
    data = tmp_path / "data"
    first = settings_with(monkeypatch, DEBUG="True", DATA_DIR=str(data))["FIELD_ENCRYPTION_KEYS"]
    again = settings_with(monkeypatch, DEBUG="True", DATA_DIR=str(data))["FIELD_ENCRYPTION_KEYS"]

    assert first == again and len(first) == 1
    Fernet(first[0])
    kept = data / "field-encryption-key"
    assert kept.read_text().strip() == first[0]
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600  # readable by its owner only
    assert [path.name for path in data.iterdir()] == ["field-encryption-key"]  # no draft left behind
    # Keys in the environment are used instead, development or not.
    assert settings_with(monkeypatch, DEBUG="True", DATA_DIR=str(data), FIELD_ENCRYPTION_KEYS=KEY)[
        "FIELD_ENCRYPTION_KEYS"
    ] == [KEY]


def test_a_damaged_development_key_stops_the_start(monkeypatch, tmp_path):
    monkeypatch.delenv("FIELD_ENCRYPTION_KEYS", raising=False)
    (tmp_path / "field-encryption-key").write_text(KEY[:20] + "\n")
    assert "key 1 of 1 is not one" in refused(monkeypatch, DEBUG="True", DATA_DIR=str(tmp_path))

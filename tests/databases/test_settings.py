"""The settings of several servers (docs/scaling.md): PgBouncer in transaction mode, LISTEN on the primary,
a replica."""

import runpy

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.support.servers import ROOT

SETTINGS = ROOT / "historyhub" / "settings.py"
POOLER = "postgres://hh@pgbouncer.internal:6432/historyhub"
PRIMARY = "postgres://hh:secret@db-primary.internal:5432/historyhub"
REPLICA = "postgres://hh@pgbouncer-replica.internal:6432/historyhub"
VARIABLES = [
    "DATABASE_URL",
    "DATABASE_TRANSACTION_POOLING",
    "DATABASE_LISTEN_URL",
    "DATABASE_REPLICA_URL",
    "DATABASE_REPLICA_MAX_LAG_SECONDS",
    "DATABASE_REPLICA_PIN_SECONDS",
    "DATABASE_POOL_DISABLED",
]


def settings_with(monkeypatch, **environment):
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS))


def test_transaction_pooling_turns_off_what_lives_longer_than_a_transaction(monkeypatch):
    found = settings_with(
        monkeypatch, DATABASE_URL=POOLER, DATABASE_TRANSACTION_POOLING="True", DATABASE_LISTEN_URL=PRIMARY
    )
    database = found["DATABASES"]["default"]
    assert database["OPTIONS"]["prepare_threshold"] is None
    assert database["DISABLE_SERVER_SIDE_CURSORS"] is True
    # PgBouncer refuses startup options: jit=off is the server's to set.
    assert "options" not in database["OPTIONS"]
    assert found["DATABASE_LISTEN"] == {
        "host": "db-primary.internal", "port": 5432, "dbname": "historyhub", "user": "hh", "password": "secret",
    }  # fmt: skip


def test_without_a_pooler_nothing_changes(monkeypatch):
    database = settings_with(monkeypatch, DATABASE_URL=PRIMARY)["DATABASES"]["default"]
    assert "prepare_threshold" not in database["OPTIONS"]
    assert not database["DISABLE_SERVER_SIDE_CURSORS"]
    assert database["OPTIONS"]["options"] == "-c jit=off"


def test_a_replica_is_a_second_alias_that_gives_up_quickly_and_is_never_migrated(monkeypatch):
    found = settings_with(monkeypatch, DATABASE_URL=PRIMARY, DATABASE_REPLICA_URL=REPLICA)
    replica = found["DATABASES"]["replica"]
    assert (replica["HOST"], replica["PORT"]) == ("pgbouncer-replica.internal", 6432)
    assert replica["ENGINE"] == "historyhub.postgresql"
    assert replica["OPTIONS"]["connect_timeout"] == 1
    assert replica["OPTIONS"]["pool"]["timeout"] == 1
    assert replica["TEST"] == {"MIRROR": "default"}
    assert found["DATABASE_ROUTERS"] == ["historyhub.databases.router.PrimaryOrReplica"]
    assert found["DATABASE_REPLICA_MAX_LAG_SECONDS"] == 5
    assert found["DATABASE_REPLICA_PIN_SECONDS"] == 10


@pytest.mark.parametrize(
    "environment, message",
    [
        (
            {"DATABASE_URL": POOLER, "DATABASE_TRANSACTION_POOLING": "True"},
            "DATABASE_TRANSACTION_POOLING needs DATABASE_LISTEN_URL",
        ),
        ({"DATABASE_URL": "sqlite:///x.sqlite3", "DATABASE_REPLICA_URL": REPLICA}, "are for PostgreSQL"),
        ({"DATABASE_URL": "sqlite:///x.sqlite3", "DATABASE_TRANSACTION_POOLING": "True"}, "are for PostgreSQL"),
        ({"DATABASE_URL": PRIMARY, "DATABASE_REPLICA_URL": "sqlite:///x.sqlite3"}, "must point at PostgreSQL"),
        (
            {"DATABASE_URL": PRIMARY, "DATABASE_LISTEN_URL": "redis://cache"},
            "DATABASE_LISTEN_URL is not a database URL",
        ),
        ({"DATABASE_URL": PRIMARY, "DATABASE_REPLICA_MAX_LAG_SECONDS": "0"}, "must be at least 1, not '0'"),
        ({"DATABASE_URL": PRIMARY, "DATABASE_TRANSACTION_POOLING": "yes"}, "must be True or False, not 'yes'"),
    ],
)
def test_a_setting_that_cannot_work_stops_the_start(monkeypatch, environment, message):
    with pytest.raises(ImproperlyConfigured) as refusal:
        settings_with(monkeypatch, **environment)
    assert message in str(refusal.value)

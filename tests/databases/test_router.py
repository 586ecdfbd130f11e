"""The database router (historyhub.databases): which pages read the replica, and when they read the primary
instead (docs/scaling.md, "Reads").

A replica here is a second connection to the test database under the alias ``replica`` (on SQLite the same
file), so what a page read through each alias is counted as Django ran it; a dead one points where no
database is. The cluster tests (tests/cluster) do it with a real streaming standby.
"""

from pathlib import Path

import pytest
from django.db import DEFAULT_DB_ALIAS, connections
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from bench.production import free_port
from historyhub.databases import pinning, replica
from historyhub.history import item_log, sessions
from historyhub.history.models import Session

SESSIONS = reverse("dashboard:sessions", args=["default"])
APPROVALS = reverse("dashboard:approvals", args=["default"])
# Every page whose reads may be stale by DATABASE_REPLICA_MAX_LAG_SECONDS; nothing of the API, nothing that decides.
READ_FROM_REPLICA = {"dashboard:sessions", "dashboard:approvals"}


def url_names(resolver=None, namespace=""):
    """Every named URL with its view: (``namespace:name``, view)."""
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from url_names(pattern, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}{pattern.name}", pattern.callback


pytestmark = pytest.mark.django_db(transaction=True, databases=[DEFAULT_DB_ALIAS, replica.ALIAS])


def test_only_the_list_pages_may_read_the_replica():
    marked = {name for name, view in url_names() if getattr(view, "reads_from_replica", False)}
    assert marked == READ_FROM_REPLICA


def replica_settings(**where):
    settings = {**connections[DEFAULT_DB_ALIAS].settings_dict, **where}
    # One connection per thread is enough here; a pool would outlive the alias.
    settings["OPTIONS"] = {key: value for key, value in settings["OPTIONS"].items() if key != "pool"}
    return settings


@pytest.fixture(scope="module", autouse=True)
def replica_alias(django_db_setup):
    """The alias ``replica``, there before each test's database access is set up (which must name it)."""
    connections.settings[replica.ALIAS] = replica_settings()
    yield
    connections[replica.ALIAS].close()
    del connections[replica.ALIAS]
    del connections.settings[replica.ALIAS]
    replica.status.forget()


@pytest.fixture(autouse=True)
def with_replica():
    """The replica, afresh for each test: the test database itself, or (``where``) somewhere else."""

    def point(**where):
        connections[replica.ALIAS].close()
        del connections[replica.ALIAS]
        connections.settings[replica.ALIAS] = replica_settings(**where)
        replica.status.forget()

    point()
    yield point
    # Back on the test database, which the end of a transactional test flushes through every alias it names.
    point()


@pytest.fixture
def person_client(client, django_user_model):
    person = django_user_model.objects.create_superuser("ana", "ana@example.com", "a-long-password-1")
    client.force_login(person)
    return client


@pytest.fixture
def listed():
    sessions.ensure(agent="support", session_id="support-1")
    item_log.append("support-1", [{"role": "user", "content": "Where is my order?"}])


def read(client, url, **params):
    """The page, and the history_session queries it made on the primary and on the replica."""
    primary, standby = (
        CaptureQueriesContext(connections[DEFAULT_DB_ALIAS]),
        CaptureQueriesContext(connections[replica.ALIAS]),
    )
    with primary, standby:
        response = client.get(url, params)
    table = Session._meta.db_table

    def touching(captured):
        return [query["sql"] for query in captured.captured_queries if table in query["sql"]]

    return response, touching(primary), touching(standby)


def test_the_session_list_reads_the_replica(with_replica, person_client, listed):
    response, on_primary, on_replica = read(person_client, SESSIONS)
    assert response.status_code == 200
    assert b"support-1" in response.content
    assert on_replica and not on_primary


def test_the_approvals_inbox_reads_the_replica(with_replica, person_client, listed):
    with CaptureQueriesContext(connections[replica.ALIAS]) as standby:
        assert person_client.get(APPROVALS).status_code == 200
    assert standby.captured_queries


def test_a_session_page_reads_the_primary(with_replica, person_client, listed):
    response, on_primary, on_replica = read(person_client, reverse("dashboard:session", args=["default", "support-1"]))
    assert response.status_code == 200
    assert on_primary and not on_replica


def test_a_live_refresh_reads_the_primary_which_announced_the_change(with_replica, person_client, listed):
    response, on_primary, on_replica = read(person_client, SESSIONS, live="1", since="stale")
    assert response.status_code == 200
    assert on_primary and not on_replica


def test_a_persons_page_write_pins_their_reads_to_the_primary(with_replica, person_client, listed):
    # Any page request that may write pins, whatever its answer (the middleware does not know what was written).
    written = person_client.post(SESSIONS)
    assert written.status_code == 405
    assert pinning.COOKIE in written.cookies
    _, on_primary, on_replica = read(person_client, SESSIONS)
    assert on_primary and not on_replica


def test_a_forged_pin_is_ignored(with_replica, person_client, listed):
    person_client.cookies[pinning.COOKIE] = "1"
    _, on_primary, on_replica = read(person_client, SESSIONS)
    assert on_replica and not on_primary


def test_the_api_never_pins(with_replica, api):
    answer = api.post("sessions/s1/items", {"items": [{"role": "user", "content": "hi"}]})
    assert answer.status_code == 200
    assert pinning.COOKIE not in answer.cookies


def test_a_dead_replica_degrades_to_the_primary_and_is_reported(with_replica, person_client, listed):
    if connections[DEFAULT_DB_ALIAS].vendor == "postgresql":
        with_replica(HOST="127.0.0.1", PORT=str(free_port()))
    else:
        with_replica(NAME=str(Path("/nonexistent-folder") / "replica.sqlite3"))
    # Only the primary's queries are counted: counting the replica's would connect to it.
    with CaptureQueriesContext(connections[DEFAULT_DB_ALIAS]) as primary:
        response = person_client.get(SESSIONS)
    on_primary = [query for query in primary.captured_queries if Session._meta.db_table in query["sql"]]
    assert response.status_code == 200
    assert b"support-1" in response.content
    assert on_primary
    state = replica.status.current()
    assert state.usable is False
    assert state.lag_seconds is None
    assert "did not answer" in state.reason


def test_writes_go_to_the_primary_even_for_an_object_read_from_the_replica(with_replica, listed):
    session = Session.objects.using(replica.ALIAS).get(session_id="support-1")
    session.name = "Renamed"
    session.save(update_fields=["name"])
    assert Session.objects.using(DEFAULT_DB_ALIAS).get(session_id="support-1").name == "Renamed"

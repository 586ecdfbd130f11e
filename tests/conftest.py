"""The fixtures every test may ask for: people who may or may not approve, API keys of each
scope, clients that speak to the real URLs, and a live server."""

from pathlib import Path

import pytest
from django.test import Client, override_settings

from historyhub import live
from historyhub.apikeys.models import ApiKey
from historyhub.lib.session_keys import DEFAULT_PROJECT
from historyhub.projects.models import Project, Role
from tests.support.actors import ApiClient, make_approver, make_member
from tests.support.servers import InProcessServer


@pytest.fixture(scope="session", autouse=True)
def quick_password_hashing():
    """Each person the tests make or log in costs a million PBKDF2 rounds otherwise, most of some tests' time."""
    with override_settings(PASSWORD_HASHERS=["tests.support.passwords.QuickPBKDF2PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """The test database, as pytest-django makes it; this process's live listener, connected to it
    once anything waited, stops before the database is dropped, and SQLite's change file goes with it."""
    yield
    live.hub.stop_signal()
    changes = live.change_file()
    if changes is not None:
        Path(changes.path).unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def default_project(request):
    """The project ``default`` the migrations make, made again for a test that uses the database: a
    transactional test flushes every table when it ends, rows the migrations made included."""
    names = set(request.fixturenames)
    for fixture in ("transactional_db", "db"):
        if fixture in names:
            request.getfixturevalue(fixture)
            break
    else:
        if request.node.get_closest_marker("django_db") is None:
            return
    Project.objects.get_or_create(id=DEFAULT_PROJECT, defaults={"name": "Default"})


@pytest.fixture(scope="session")
def in_process_server(django_db_setup):
    with InProcessServer() as server:
        yield server


@pytest.fixture
def asgi_live_server(in_process_server, transactional_db):
    """The app under uvicorn, over real HTTP, on the test database (what the browser and client tests use)."""
    return in_process_server


@pytest.fixture
def anonymous(db):
    return ApiClient()


@pytest.fixture
def write_key(db):
    return ApiKey.issue("tests (write)", "write")[1]


@pytest.fixture
def read_key(db):
    return ApiKey.issue("tests (read)", "read")[1]


@pytest.fixture
def decide_key(db):
    """A client application's key: it reads and decides, and opens nothing."""
    return ApiKey.issue("tests (decide)", "decide")[1]


@pytest.fixture
def admin_key(db):
    """A key that configures the project: policies, groups, channels."""
    return ApiKey.issue("tests (admin)", "admin")[1]


@pytest.fixture
def api(write_key):
    return ApiClient(write_key)


@pytest.fixture
def read_api(read_key):
    return ApiClient(read_key)


@pytest.fixture
def decide_api(decide_key):
    return ApiClient(decide_key)


@pytest.fixture
def admin_api(admin_key):
    return ApiClient(admin_key)


@pytest.fixture
def session_id(api):
    """A support session made over the API (the history and runs tests make theirs their own way)."""
    response = api.post("sessions", {"sessionId": "support-42", "agent": "support"})
    assert response.status_code == 201
    return "support-42"


# The people: on the database a test has, transactional when the test's fixtures ask for it (a live server does).
@pytest.fixture
def approver(db):
    return make_approver()


@pytest.fixture
def viewer(db):
    return make_member("viewer", Role.VIEWER)


@pytest.fixture
def approver_client(approver):
    client = Client(enforce_csrf_checks=True)
    client.force_login(approver)
    return client


@pytest.fixture
def viewer_client(viewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    return client

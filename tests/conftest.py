"""The actors tests need: people who may or may not approve, API keys of both
scopes, and clients that speak to the real URLs."""

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from historyhub import live
from historyhub.apikeys.models import ApiKey
from tests.servers import InProcessServer


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """The test database, as pytest-django makes it; this process's live listener, connected to it
    once anything waited, stops before the database is dropped, and SQLite's change file goes with it."""
    yield
    live.hub.stop_signal()
    changes = live.change_file()
    if changes is not None:
        Path(changes.path).unlink(missing_ok=True)


@pytest.fixture(scope="session")
def in_process_server(django_db_setup):
    with InProcessServer() as server:
        yield server


@pytest.fixture
def asgi_live_server(in_process_server, transactional_db):
    """The app under uvicorn, over real HTTP, on the test database (what the browser and client tests use)."""
    return in_process_server


class ApiClient:
    """Django's test client speaking JSON to /api/v1 with a bearer key."""

    def __init__(self, key=None):
        self.client = Client()
        self.key = key

    def _headers(self, extra):
        return {**({"Authorization": f"Bearer {self.key}"} if self.key else {}), **(extra or {})}

    def request(self, method, path, body=None, raw=None, headers=None, **params):
        url = path if path.startswith("/") else f"/api/v1/{path}"
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        call = getattr(self.client, method.lower())
        if method.upper() == "GET":
            return call(url, params, headers=self._headers(headers))
        return call(url, data, content_type="application/json", headers=self._headers(headers))

    def get(self, path, **params):
        return self.request("GET", path, **params)

    def post(self, path, body=None, **kwargs):
        return self.request("POST", path, body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request("PUT", path, body, **kwargs)

    def patch(self, path, body=None, **kwargs):
        return self.request("PATCH", path, body, **kwargs)

    def delete(self, path, body=None, **kwargs):
        return self.request("DELETE", path, body, **kwargs)


@pytest.fixture
def write_key(db):
    return ApiKey.issue("tests (write)", "write")[1]


@pytest.fixture
def read_key(db):
    return ApiKey.issue("tests (read)", "read")[1]


@pytest.fixture
def api(write_key):
    return ApiClient(write_key)


@pytest.fixture
def read_api(read_key):
    return ApiClient(read_key)


def make_approver(username="owner", password="owner-password-1"):
    user = User.objects.create_user(username, password=password)
    # get_or_create: tests on a transactional database flush what the migrations made.
    group, _ = Group.objects.get_or_create(name="Approvers")
    group.permissions.add(Permission.objects.get(codename="decide_clientaction"))
    user.groups.add(group)
    return user


@pytest.fixture
def approver(db):
    return make_approver()


@pytest.fixture
def viewer(db):
    return User.objects.create_user("viewer", password="viewer-password-1")


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

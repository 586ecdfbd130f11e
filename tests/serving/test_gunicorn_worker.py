"""The gunicorn worker bin/start runs (historyhub/serving/gunicorn_worker.py), with the settings' defaults:
forwarded headers trusted from nobody, keys redacted from the access log, no shared control socket."""

import re

import pytest

from historyhub.apikeys.models import ApiKey
from tests.support.servers import ProductionServer, database_url, fetch, production_environment
from tests.support.waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

HOST = {"Host": "historyhub.example.com"}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory, home):
    folder = tmp_path_factory.mktemp("worker")
    environment = production_environment(
        folder, DATABASE_URL=database_url(), HOME=str(home), BEHIND_HTTPS_PROXY="False"
    )
    environment.pop("XDG_RUNTIME_DIR", None)
    with ProductionServer(environment, folder / "server.log") as server:
        yield server


def access_line(server, request):
    """The access log's line for ``request`` ("GET /path HTTP/1.1"), once it is written."""
    pattern = re.compile(rf'^.*"{re.escape(request)}" \d{{3}}$', re.MULTILINE)
    return until(lambda: pattern.search(server.log_text()), message=f"the access log line of {request}").group(0)


def test_forwarded_headers_from_loopback_are_ignored_by_default(server):
    forwarded = {**HOST, "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}

    answer = fetch(f"{server.url}/accounts/login/?forwarded", forwarded)

    # Plain HTTP, whatever the header says: sent to HTTPS, and no HSTS.
    assert answer.status == 301
    assert "Strict-Transport-Security" not in answer.headers
    # The client address the log shows is the one Django is given as REMOTE_ADDR.
    assert access_line(server, "GET /accounts/login/?forwarded HTTP/1.1").startswith("127.0.0.1:")


def test_keys_in_a_url_never_reach_the_access_log(server):
    _, key = ApiKey.issue("pasted", "read")
    encoded = key.replace("_", "%5F")

    fetch(f"{server.url}/api/v1/sessions?api_key={key}", HOST)
    fetch(f"{server.url}/api/v1/sessions/{key}/items", HOST)
    fetch(f"{server.url}/api/v1/sessions?page=1&api_key={encoded}", HOST)

    access_line(server, "GET /api/v1/sessions?api_key=[redacted] HTTP/1.1")
    access_line(server, "GET /api/v1/sessions/[redacted]/items HTTP/1.1")
    access_line(server, "GET /api/v1/sessions?page=1&api_key=[redacted] HTTP/1.1")
    secret = key.removeprefix("hh_")
    assert secret not in server.log_text() and secret not in server.log_text().replace("%5F", "_")


def test_the_server_leaves_no_control_socket_in_the_home_folder_for_another_instance_to_lose(server, home):
    # gunicorn's default is $HOME/.gunicorn/gunicorn.ctl, one path for every instance a user runs.
    assert not (home / ".gunicorn").exists()

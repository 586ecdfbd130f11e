"""The production configuration, run the way the Docker image runs it."""

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def production_environment(tmp_path, **extra):
    environment = {key: value for key, value in os.environ.items() if key not in ("DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    environment.update(
        PATH=f"{BIN}{os.pathsep}{environment.get('PATH', '')}",
        DEBUG="False",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="historyhub.example.com",
        STATIC_ROOT=str(tmp_path / "static"),
        BEHIND_HTTPS_PROXY="True",
    )
    environment.update(extra)
    return environment


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_production_settings_pass_the_deploy_checks(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_environment(tmp_path),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_settings_refuse_a_missing_secret_key_when_debug_is_off(tmp_path):
    environment = production_environment(tmp_path)
    del environment["SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr


def test_the_settings_refuse_a_boolean_they_cannot_read(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=production_environment(tmp_path, DEBUG="yes please"),
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "DEBUG must be True or False" in result.stderr


def collect_static(environment):
    """collectstatic into the environment's STATIC_ROOT: production pages need its manifest."""
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert collected.returncode == 0, collected.stderr


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirects)


def wait_for(url, process, headers=None, attempts=150):
    """Poll until the server answers (it is starting up); give up if it exits."""
    for _ in range(attempts):
        if process.poll() is not None:
            return None
        try:
            return OPENER.open(urllib.request.Request(url, headers=headers or {}), timeout=2)
        except urllib.error.HTTPError as error:
            return error
        except OSError:
            time.sleep(0.1)
    return None


@pytest.mark.django_db(transaction=True)
def test_the_start_script_migrates_and_serves_over_http(tmp_path):
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        database_url = f"sqlite:///{tmp_path / 'production.sqlite3'}"
    else:
        database_url = (
            f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
            f"/{database['NAME']}"
        )
    environment = production_environment(tmp_path, DATABASE_URL=database_url, DATA_DIR=str(tmp_path))
    collect_static(environment)
    port = free_port()
    environment.update(BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2")
    server = subprocess.Popen(
        [str(ROOT / "bin" / "start")],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        health = wait_for(f"http://127.0.0.1:{port}/healthz", server)
        assert health is not None and health.status == 200, server.stdout.read() if server.poll() is not None else ""
        assert b'"ok"' in health.read()

        probe = subprocess.run(
            [sys.executable, str(ROOT / "bin" / "healthcheck")],
            env={**environment, "HEALTHCHECK_URL": f"http://127.0.0.1:{port}/healthz"},
        )
        assert probe.returncode == 0

        https_headers = {"Host": "historyhub.example.com", "X-Forwarded-Proto": "https"}
        login = wait_for(f"http://127.0.0.1:{port}/accounts/login/", server, https_headers)
        assert login.status == 200
        assert "default-src 'self'" in login.headers["Content-Security-Policy"]

        plain = wait_for(f"http://127.0.0.1:{port}/accounts/login/", server, {"Host": "historyhub.example.com"})
        assert plain.status == 301  # HTTPS is enforced

        htmx = wait_for(f"http://127.0.0.1:{port}/static/vendor/htmx-2.0.11.min.js", server, https_headers)
        assert htmx.status == 200 and b"htmx" in htmx.read(200)
        swagger = wait_for(f"http://127.0.0.1:{port}/static/ninja/swagger-ui-bundle.js", server, https_headers)
        assert swagger.status == 200

        unknown_host = wait_for(
            f"http://127.0.0.1:{port}/accounts/login/",
            server,
            {"Host": "evil.example.net", "X-Forwarded-Proto": "https"},
        )
        assert unknown_host.status == 400
    finally:
        server.terminate()
        server.wait(timeout=20)

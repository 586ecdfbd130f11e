"""The production configuration, run the way the Docker image runs it."""

import json
import subprocess
import sys

import pytest
from django.db import connection

from historyhub.apikeys.models import ApiKey
from tests.support.servers import (
    HTTPS,
    ROOT,
    ProductionServer,
    collect_static,
    database_url,
    fetch,
    production_environment,
)


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


@pytest.mark.django_db(transaction=True)
def test_the_start_script_migrates_and_serves_over_http(tmp_path):
    # On SQLite a new database, which bin/start migrates; on PostgreSQL the tests' own.
    url = f"sqlite:///{tmp_path / 'production.sqlite3'}" if connection.vendor == "sqlite" else database_url()
    environment = production_environment(tmp_path, DATABASE_URL=url, DATA_DIR=str(tmp_path))
    collect_static(environment)
    with ProductionServer(environment, tmp_path / "server.log", workers=2) as server:
        health = fetch(f"{server.url}/healthz", {})
        assert health.status == 200
        assert json.load(health)["status"] == "ok"
        # The ASGI app under gunicorn's uvicorn workers.
        assert health.headers["server"] == "uvicorn"

        probe = subprocess.run(
            [sys.executable, str(ROOT / "bin" / "healthcheck")],
            env={**environment, "HEALTHCHECK_URL": f"{server.url}/healthz"},
        )
        assert probe.returncode == 0

        login = fetch(f"{server.url}/accounts/login/")
        assert login.status == 200
        assert "default-src 'self'" in login.headers["Content-Security-Policy"]

        plain = fetch(f"{server.url}/accounts/login/", {"Host": "historyhub.example.com"})
        assert plain.status == 301  # HTTPS is enforced

        htmx = fetch(f"{server.url}/static/vendor/htmx-2.0.11.min.js")
        assert htmx.status == 200 and b"htmx" in htmx.read(200)
        assert fetch(f"{server.url}/static/ninja/swagger-ui-bundle.js").status == 200

        unknown_host = {"Host": "evil.example.net", "X-Forwarded-Proto": "https"}
        assert fetch(f"{server.url}/accounts/login/", unknown_host).status == 400


@pytest.mark.django_db(transaction=True)
def test_the_production_server_streams_a_long_history_whole(tmp_path):
    environment = production_environment(tmp_path, DATABASE_URL=database_url())
    items = [{"role": "user", "content": f"message {number} " + "x" * 1000} for number in range(300)]
    key = ApiKey.issue("deployment", "write")[1]
    api = {**HTTPS, "Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    with ProductionServer(environment, tmp_path / "server.log") as server:
        appended = fetch(f"{server.url}/api/v1/sessions/long/items", api, json.dumps({"items": items}).encode())
        assert appended.status == 200

        answer = fetch(f"{server.url}/api/v1/sessions/long/items", api)

        assert answer.status == 200
        assert json.load(answer)["items"] == items

"""The production configuration, run the way the Docker image runs it, and as a checkout deployed without it."""

import json
import os
import re
import secrets
import shutil
import subprocess
import sys

import pytest
from cryptography.fernet import Fernet
from django.db import connection

from historyhub.apikeys.models import ApiKey
from tests.support.servers import (
    BIN,
    HTTPS,
    ROOT,
    ProductionServer,
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


def test_the_settings_refuse_missing_field_encryption_keys_when_debug_is_off(tmp_path):
    environment = production_environment(tmp_path)
    del environment["FIELD_ENCRYPTION_KEYS"]
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "FIELD_ENCRYPTION_KEYS is required when DEBUG is off" in result.stderr
    assert not (tmp_path / "field-encryption-key").exists()


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
    environment = production_environment(tmp_path, DATABASE_URL=url)
    with ProductionServer(environment, tmp_path / "server.log", workers=2) as server:
        health = fetch(f"{server.url}/healthz", {})
        assert health.status == 200
        assert json.load(health) == {"status": "ok"}
        # The ASGI app under gunicorn's uvicorn workers.
        assert health.headers["server"] == "uvicorn"
        # The static files were collected for the test run: bin/start found them current.
        assert "The static files are current: nothing to collect." in server.log_text()

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


def collected_static_files(server):
    """Whether bin/start's collectstatic copied any file, as its log says."""
    return re.search(r"\d+ static files? copied", server.log_text()) is not None


def stylesheet(server):
    """The login page's stylesheet, as the page names it (a name collectstatic's manifest gave it), and its text."""
    page = fetch(f"{server.url}/accounts/login/")
    assert page.status == 200
    address = re.search(r'href="(/static/css/historyhub\.[0-9a-f]+\.css)"', page.read().decode())[1]
    answer = fetch(f"{server.url}{address}")
    assert answer.status == 200
    return address, answer.read().decode()


def test_a_fresh_clone_serves_with_bin_start_alone_which_collects_static_files_gone_or_stale(tmp_path):
    clone = tmp_path / "historyhub"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    # What the systemd unit of docs/operations.md gives bin/start: the virtualenv on PATH and the settings.
    environment = {
        "PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "FIELD_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "RECEIPT_SIGNING_KEYS": secrets.token_urlsafe(32),
        "ALLOWED_HOSTS": "historyhub.example.com",
        "BEHIND_HTTPS_PROXY": "True",
    }
    with ProductionServer(environment, tmp_path / "first.log", root=clone) as server:
        assert collected_static_files(server)
        first_address, _ = stylesheet(server)
        key = subprocess.run(
            [sys.executable, "manage.py", "createapikey", "deployed", "--scope", "read"],
            cwd=clone,
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        sessions = fetch(f"{server.url}/api/v1/sessions", {**HTTPS, "Authorization": f"Bearer {key}"})
        assert sessions.status == 200 and json.load(sessions)["items"] == []

    # An upgrade changes a static file: the next start collects again.
    with (clone / "static" / "css" / "historyhub.css").open("a") as source:
        source.write("\n/* upgraded */\n")
    with ProductionServer(environment, tmp_path / "second.log", root=clone) as server:
        assert collected_static_files(server)
        second_address, text = stylesheet(server)
        assert second_address != first_address and text.rstrip().endswith("/* upgraded */")

        # The files are deleted under the running server: it says it is not ready, rather than answer pages with 500.
        shutil.rmtree(clone / "staticfiles")
        health = fetch(f"{server.url}/healthz", {})
        assert (health.status, json.load(health)) == (503, {"status": "not ready"})

    # Restarted, it collects them again.
    with ProductionServer(environment, tmp_path / "third.log", root=clone) as server:
        assert collected_static_files(server)
        assert stylesheet(server)[0] == second_address
        assert fetch(f"{server.url}/healthz", {}).status == 200

"""Reaching the parts of a running cluster (deploy/cluster): the balancer, each app server, the databases."""

import os
import re
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import requests

from bench.production import ThrowawayPostgres
from deploy import cluster as deployment

ROOT = Path(__file__).resolve().parents[2]
# A key's waits held at once by the test of many waits, which fill its places (HISTORYHUB_MAX_WAITS_PER_KEY).
HELD_WAITS = 300


class Cluster:
    def __init__(self, state: deployment.State):
        self.state = state
        self.url = state.url
        self.agent_key = state.keys["agent"]
        self.people_key = state.keys["people"]

    def server(self, number: int) -> str:
        """The address of app server ``number`` (1, 2, 3), past the balancer."""
        return f"http://127.0.0.1:{self.state.servers[number - 1]['port']}"

    def details(self, number: int) -> dict:
        """Its /healthz/details (answered only to a request from this machine that no proxy relayed)."""
        return requests.get(f"{self.server(number)}/healthz/details", timeout=10).json()

    def manage(self, *arguments: str, **environment: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=ROOT,
            env={**self.state.environment, **environment},
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(arguments)} failed:\n{result.stdout}{result.stderr}")
        return result.stdout

    def standby(self) -> ThrowawayPostgres:
        return ThrowawayPostgres(port=self.state.standby["port"], folder=self.state.standby["folder"])

    def sql(self, database: dict, query: str) -> str:
        """``query`` through psql on the primary or the standby (``state.primary`` or ``state.standby``)."""
        result = subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(database["port"]), "-U", "postgres", "-d", "historyhub", "-Atc"]
            + [query],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise RuntimeError(f"psql failed: {result.stderr}")
        return result.stdout.strip()

    def kill_server(self, number: int) -> None:
        """SIGKILL app server ``number``: its master, its workers, its notification worker and its sweep."""
        os.killpg(self.state.servers[number - 1]["pid"], signal.SIGKILL)

    def person(self, base: str) -> requests.Session:
        """A superuser, logged in to the dashboard at ``base``."""
        username = f"person-{secrets.token_hex(4)}"
        password = secrets.token_urlsafe(16)
        self.manage(
            "createsuperuser",
            "--noinput",
            "--username",
            username,
            "--email",
            f"{username}@example.com",
            DJANGO_SUPERUSER_PASSWORD=password,
        )
        browser = requests.Session()
        page = browser.get(f"{base}/accounts/login/", timeout=10)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        answer = browser.post(
            f"{base}/accounts/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": token},
            allow_redirects=False,
            timeout=10,
        )
        assert answer.status_code == 302, answer.text
        return browser


def api(base: str, method: str, path: str, key: str, body=None, **headers: str) -> requests.Response:
    return requests.request(
        method,
        f"{base}/api/v1{path}",
        json=body,
        headers={"Authorization": f"Bearer {key}", **headers},
        timeout=70,
    )


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(6)}"

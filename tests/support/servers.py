"""The servers tests speak real HTTP to.

- ``InProcessServer``: the ASGI app under uvicorn on a thread of the test
  process, so it shares the test database and this process's live hub (a test
  can count subscribers).
- ``ProductionServer``: ``bin/start`` as the Docker image runs it (gunicorn,
  uvicorn workers, DEBUG off), in its own processes; ``fetch`` speaks to it
  as a browser behind the HTTPS proxy would, without following redirects.
  Its static files are collected once for the test run (``shared_static_root``),
  so its ``collectstatic --if-stale`` finds them current.
"""

import fcntl
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from functools import cache
from pathlib import Path

import uvicorn
from django.db import connection

from bench.server import free_port
from historyhub import live
from historyhub.asgi import application
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# Migrations on a new database, and a first collectstatic, take a while on a busy machine.
START_SECONDS = 60


class InProcessServer:
    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        config = uvicorn.Config(application, lifespan="off", log_level="warning", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self):
        self.thread.start()
        until(lambda: self.server.started, START_SECONDS, "the in-process server's start")
        return self

    def __exit__(self, *exc_info):
        # Streams and waits whose clients left end first, so their requests give their connections back.
        until(lambda: live.hub.subscriber_count() == 0, 10, "the end of every stream and wait")
        self.server.should_exit = True
        self.thread.join()
        self.socket.close()


def database_url():
    """The test database, as a DATABASE_URL for another process."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    return (
        f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}/{database['NAME']}"
    )


def production_environment(tmp_path, **extra):
    """What bin/start reads in production, behind the HTTPS proxy; ``tmp_path`` is the server's DATA_DIR."""
    environment = {key: value for key, value in os.environ.items() if key not in ("DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    environment.update(
        PATH=f"{BIN}{os.pathsep}{environment.get('PATH', '')}",
        DEBUG="False",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="historyhub.example.com",
        DATA_DIR=str(tmp_path),
        STATIC_ROOT=str(shared_static_root()),
        BEHIND_HTTPS_PROXY="True",
    )
    environment.update(extra)
    return environment


@cache
def shared_static_root():
    """The production servers' static files, collected (or found current) once per test run, under a
    lock: test runs side by side in this checkout share the folder."""
    root = ROOT / "test-artifacts" / "static"
    root.parent.mkdir(exist_ok=True)
    environment = {key: value for key, value in os.environ.items() if key != "DEBUG"}
    environment.update(DEBUG="False", SECRET_KEY="collectstatic-only", STATIC_ROOT=str(root))
    with open(root.parent / "static.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        collected = subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--if-stale"],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
        )
    assert collected.returncode == 0, collected.stderr
    return root


class ProductionServer:
    """``bin/start`` (of ``root``, this checkout unless told) on a free port of ``host``; its output goes
    to a file, read when something fails or a test looks for a line."""

    def __init__(self, environment, log_path, workers=1, root=ROOT, host="127.0.0.1"):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.environment = {**environment, "BIND": f"{host}:{self.port}", "WEB_CONCURRENCY": str(workers)}
        self.log_path = log_path
        self.root = Path(root)
        self.process = None

    def __enter__(self):
        self.log = open(self.log_path, "w")  # noqa: SIM115 - closed in __exit__
        self.process = subprocess.Popen(
            [str(self.root / "bin" / "start")],
            cwd=self.root,
            env=self.environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        until(self.healthy, START_SECONDS, f"the start of bin/start ({self.output()})")
        return self

    def __exit__(self, *exc_info):
        self.process.terminate()
        self.process.wait(timeout=40)
        self.log.close()

    def healthy(self):
        if self.process.poll() is not None:
            raise AssertionError(f"bin/start exited: {self.output()}")
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as answer:
                return answer.status == 200
        except OSError:
            return False

    def details(self):
        """What /healthz/details tells a request from this machine: the worker's pid and its subscribers."""
        with urllib.request.urlopen(f"{self.url}/healthz/details", timeout=5) as answer:
            return json.load(answer)

    def subscribers(self):
        """The waits and live streams open in the worker (there is one unless asked otherwise)."""
        return self.details()["subscribers"]

    def parked(self):
        """Of those, the ones waiting for a change now: a wait is parked once its first read is done."""
        return self.details()["parked"]

    def restart_workers(self):
        """What a deploy does: the master starts new workers and stops the old ones gracefully."""
        self.process.send_signal(signal.SIGHUP)

    def output(self):
        return self.log_text()[-3000:]

    def log_text(self):
        return Path(self.log_path).read_text(errors="replace")


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirects)
HTTPS = {"Host": "historyhub.example.com", "X-Forwarded-Proto": "https"}


def fetch(url, headers=HTTPS, data=None, timeout=10):
    """The answer, whatever its status, without following redirects."""
    try:
        return OPENER.open(urllib.request.Request(url, headers=headers, data=data), timeout=timeout)
    except urllib.error.HTTPError as error:
        return error

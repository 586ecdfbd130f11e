"""A live HistoryHub for the package's tests, in processes of its own, run by the server's own Python.

The suite runs where an agent's project would: a virtualenv with the wheel and
no Django. The server is the repository's ``bin/start`` (gunicorn, uvicorn
workers, DEBUG off) on a free port, run by ``HISTORYHUB_SERVER_PYTHON`` (the
repository's ``.venv/bin/python`` unless set), on a database of its own:
SQLite in a temporary folder, or, when ``DATABASE_URL`` names PostgreSQL, a new
database on that server, dropped afterwards. API keys are made with
``manage.py createapikey``, as an operator makes them.
"""

import base64
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.support.waiting import until

REPOSITORY = Path(__file__).resolve().parents[4]
CLIENT_SOURCE = REPOSITORY / "clients" / "python" / "src"
SERVER_PYTHON = Path(os.environ.get("HISTORYHUB_SERVER_PYTHON") or REPOSITORY / ".venv" / "bin" / "python")
START_SECONDS = 60
STOP_SECONDS = 40

# Creates or drops a PostgreSQL database, with psycopg from the server's virtualenv (this one has none).
POSTGRES_ADMIN = """
import sys
import psycopg
from psycopg import sql

url, action, name = sys.argv[1:]
statement = "CREATE DATABASE {}" if action == "create" else "DROP DATABASE IF EXISTS {} WITH (FORCE)"
with psycopg.connect(url, autocommit=True) as connection:
    connection.execute(sql.SQL(statement).format(sql.Identifier(name)))
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiveServer:
    """``bin/start`` on a fresh database in ``folder``; ``url``, and ``create_key(name, scopes)``."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log_path = self.folder / "server.log"
        self.process = None
        self.database = Database(self.folder)
        self.environment = {
            **os.environ,
            "PATH": f"{SERVER_PYTHON.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "DEBUG": "False",
            "SECRET_KEY": secrets.token_urlsafe(50),
            # A Fernet key: 32 random bytes, url-safe base64 (the server encrypts its stored secrets with it).
            "FIELD_ENCRYPTION_KEYS": base64.urlsafe_b64encode(secrets.token_bytes(32)).decode(),
            # An Ed25519 private key: 32 random bytes, url-safe base64 (the server signs receipts with it).
            "RECEIPT_SIGNING_KEYS": secrets.token_urlsafe(32),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "False",
            "SECURE_COOKIES": "False",
            # The server imports this checkout's client package (/mcp serves its tools), whichever checkout its
            # virtualenv installed editable.
            "PYTHONPATH": os.pathsep.join(filter(None, [str(CLIENT_SOURCE), os.environ.get("PYTHONPATH")])),
            "DATA_DIR": str(self.folder),
            "STATIC_ROOT": str(self.folder / "static"),
            "BIND": self.url.removeprefix("http://"),
            "WEB_CONCURRENCY": "2",
            # /mcp's tools report progress every second, so tests see several reports while they wait.
            "HISTORYHUB_MCP_PROGRESS_SECONDS": "1",
        }

    def __enter__(self):
        self.environment["DATABASE_URL"] = self.database.create()
        try:
            self.manage("migrate", "--noinput", "--verbosity", "0")
            with open(self.log_path, "w") as log:
                # A process group of its own, so stopping it stops the workers and the sweep it started.
                self.process = subprocess.Popen(
                    [str(REPOSITORY / "bin" / "start")],
                    cwd=REPOSITORY,
                    env=self.environment,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            until(self.healthy, START_SECONDS, f"the start of bin/start at {self.url} ({self.output()})")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=STOP_SECONDS)
            # The sweep bin/start runs beside the server, should it still be there.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
        self.database.drop()

    def manage(self, *arguments):
        """``manage.py`` with the server's Python and settings; what it printed."""
        done = subprocess.run(
            [str(SERVER_PYTHON), "manage.py", *arguments],
            cwd=REPOSITORY,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"manage.py {' '.join(arguments)}: {done.stderr}"
        return done.stdout

    def create_key(self, name, scopes):
        """A new API key of the default project with these scopes (``write``, ``decide``, …, comma-separated)."""
        return self.manage("createapikey", name, "--scope", scopes).strip()

    def healthy(self):
        if self.process.poll() is not None:
            raise AssertionError(f"bin/start exited: {self.output()}")
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as answer:
                return answer.status == 200
        except OSError:
            return False

    def output(self):
        return self.log_path.read_text()[-3000:] if self.log_path.exists() else ""


class Database:
    """SQLite in the server's folder, or a PostgreSQL database of its own on DATABASE_URL's server."""

    def __init__(self, folder):
        self.folder = folder
        configured = os.environ.get("DATABASE_URL", "")
        self.postgres = urlsplit(configured) if configured.startswith(("postgres:", "postgresql:")) else None
        self.name = None

    def create(self):
        """The new database's URL."""
        if self.postgres is None:
            return f"sqlite:///{self.folder / 'historyhub.sqlite3'}"
        base = self.postgres.path.lstrip("/") or "historyhub"
        self.name = f"{base}_py_{os.getpid()}_{secrets.token_hex(3)}"
        self._admin("create")
        return urlunsplit(self.postgres._replace(path=f"/{self.name}"))

    def drop(self):
        if self.name is not None:
            self._admin("drop")
            self.name = None

    def _admin(self, action):
        # The maintenance database, which every server has, runs the CREATE and the DROP.
        maintenance = urlunsplit(self.postgres._replace(path="/postgres"))
        done = subprocess.run(
            [str(SERVER_PYTHON), "-c", POSTGRES_ADMIN, maintenance, action, self.name],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"{action} database {self.name}: {done.stderr}"

"""A throwaway PostgreSQL cluster and the production server on it, for runs that need both (docs/stress.md).

The cluster is this run's own: initdb into a temporary folder, its own port and
socket folder, started and stopped with pg_ctl, deleted afterwards. The
machine's PostgreSQL is never touched. PostgreSQL refuses to run as root, so
as root the cluster belongs to the ``postgres`` user.
"""

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

from cryptography.fernet import Fernet

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def postgres_bin():
    """The folder of initdb and pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/N/bin, else PATH."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda path: int(Path(path).parts[-3]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl is None:
        raise SystemExit("PostgreSQL's server programs (initdb, pg_ctl) are not installed; set PG_BIN")
    return Path(pg_ctl).parent


class ThrowawayPostgres:
    """A PostgreSQL cluster in a temporary folder, listening on 127.0.0.1 only, trusting local connections."""

    def __init__(self, port=None, folder=None, settings=()):
        """``folder``: one made before (a cluster started by another process); ``settings``: more ``name=value``
        server settings."""
        # Its own folder, which the cluster's owner must be able to enter.
        self.folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="hh-postgres-"))
        self.data = self.folder / "data"
        self.port = port or free_port()
        self.bin = postgres_bin()
        self.owner = "postgres" if os.geteuid() == 0 else None
        self.options = " ".join(
            [f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=200"]
            + [f"-c {setting}" for setting in settings]
        )

    def url(self, database="historyhub"):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *command, check=True):
        if self.owner:
            command = ("runuser", "-u", self.owner, "--", *command)
        result = subprocess.run(command, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
        return result

    def pg_ctl(self, *arguments, check=True):
        return self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "postgresql.log"), *arguments,
            check=check,
        )  # fmt: skip

    def give_to_owner(self, path):
        """Let the cluster's owner (as root: ``postgres``) have ``path``."""
        if self.owner:
            entry = pwd.getpwnam(self.owner)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def create(self, database="historyhub"):
        self.give_to_owner(self.folder)
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-sync",
        )  # fmt: skip
        self.start()
        self._run(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", database)
        return self

    def start(self):
        self.pg_ctl("-w", "-t", "60", "-o", self.options, "start")

    def stop(self, mode="fast"):
        self.pg_ctl("-w", "-t", "60", "-m", mode, "stop")

    def restart(self):
        self.pg_ctl("-w", "-t", "60", "-m", "fast", "-o", self.options, "restart")

    def remove(self):
        """Stop the cluster if it runs and delete its folder."""
        if self.data.exists():
            self.pg_ctl("-w", "-t", "60", "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def production_environment(folder, database_url, **extra):
    """What bin/start reads: production settings, served over plain HTTP on loopback."""
    environment = {key: value for key, value in os.environ.items() if key not in ("DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    environment.update(
        PATH=f"{Path(PYTHON).parent}{os.pathsep}{environment.get('PATH', '')}",
        DEBUG="False",
        SECRET_KEY=secrets.token_urlsafe(50),
        FIELD_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        RECEIPT_SIGNING_KEYS=secrets.token_urlsafe(32),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="False",
        SECURE_COOKIES="False",
        DATABASE_URL=database_url,
        DATA_DIR=str(folder),
        STATIC_ROOT=str(Path(folder) / "static"),
        API_RATE_LIMITS="",
    )
    environment.update(extra)
    return environment


def manage(environment, *arguments):
    """``manage.py`` with the server's environment; returns what it printed."""
    result = subprocess.run(
        [PYTHON, "manage.py", *arguments], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(arguments)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


class Keys(NamedTuple):
    agent: str  # writes, opens client actions
    people: str  # decides them: the key that opened an action may not


def prepare(environment):
    """Migrate, collect static files and make the agents' and the deciders' API keys."""
    manage(environment, "migrate", "--noinput", "--verbosity", "0")
    manage(environment, "collectstatic", "--noinput", "--verbosity", "0")
    return Keys(
        agent=manage(environment, "createapikey", "stress", "--scope", "write").strip(),
        people=manage(environment, "createapikey", "stress people", "--scope", "decide").strip(),
    )


class ProductionServer:
    """``bin/start`` (migrate, then the production server) in its own process group, logging to a file."""

    def __init__(self, environment, log_path, workers=4):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.environment = {**environment, "BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": str(workers)}
        self.log_path = Path(log_path)
        self.process = None

    def start(self, timeout=120):
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [str(ROOT / "bin" / "start")],
                cwd=ROOT,
                env=self.environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"bin/start exited with {self.process.returncode}:\n{self.log_path.read_text()}")
            if self.healthy():
                return self
            time.sleep(0.2)
        raise RuntimeError(f"bin/start did not answer /healthz within {timeout} s:\n{self.log_path.read_text()}")

    def healthy(self):
        try:
            with urllib.request.urlopen(f"{self.base}/healthz", timeout=2) as response:
                return response.status == 200
        except (OSError, urllib.error.HTTPError):
            return False

    def workers(self):
        """The pids of the server's worker processes: the children of the first process below bin/start
        with more than one (bin/start execs the server, whose master forks the workers) that are forks of
        it, with its command line; not the sweep that bin/start started beside it."""
        pid = self.process.pid
        while len(children := _children(pid)) == 1:
            pid = children[0]
        return [child for child in children if _command_line(child) == _command_line(pid)]

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)


class Run:
    """A throwaway cluster, bin/start on it, its API keys, and a folder for logs."""

    def __init__(self, prefix):
        self.cluster = ThrowawayPostgres()
        self.folder = Path(tempfile.mkdtemp(prefix=prefix))
        self.server = None
        self.keys = None
        self.keep = False


@contextlib.contextmanager
def production_run(prefix, workers, **extra):
    """Yield a started ``Run`` (``extra``: more of the server's environment); afterwards stop the server
    and remove the cluster.

    The folder (the server's log, whatever the run wrote) is removed too,
    unless the block raised or set ``run.keep``.
    """
    run = Run(prefix)
    try:
        run.cluster.create()
        environment = production_environment(run.folder, run.cluster.url(), **extra)
        run.keys = prepare(environment)
        run.server = ProductionServer(environment, run.folder / "server.log", workers=workers).start()
        yield run
    except BaseException:
        run.keep = True
        raise
    finally:
        if run.server is not None:
            run.server.stop()
        run.cluster.remove()
        if run.keep:
            print(f"logs kept in {run.folder}")
        else:
            shutil.rmtree(run.folder, ignore_errors=True)


def _command_line(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None


def _children(pid):
    try:
        return sorted(int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return []

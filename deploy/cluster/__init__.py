"""Several app servers on one machine, as a larger installation runs them (docs/scaling.md).

    make cluster          # python -m deploy.cluster start
    make cluster-stop     # python -m deploy.cluster stop

From Debian's packages (postgresql, pgbouncer, haproxy) and the files beside this one:

- a PostgreSQL primary and a streaming-replication standby (``pg_basebackup -R``), each a
  cluster of its own in a temporary folder on a free port (bench/production.py), never
  the machine's own PostgreSQL;
- PgBouncer in transaction mode in front of each, for every ordinary connection: the
  primary's waits for a server connection as long as a request may (10 s), the standby's
  for 1 s, so that readers of a standby that died fail over to the primary at once;
- ``bin/start`` ``servers`` times, each with its workers, its notification worker and its
  sweep; their LISTEN connections go straight to the primary (DATABASE_LISTEN_URL);
- HAProxy in front of the servers, checking each one's ``/healthz`` every second.

What runs is written to ``state.json`` in the cluster's folder, so another process (``stop``,
the cluster tests, the benchmark) finds it.
"""

import contextlib
import json
import os
import pwd
import resource
import signal
import socket
import string
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.production import (
    ROOT,
    ProductionServer,
    ThrowawayPostgres,
    free_port,
    prepare,
    production_environment,
)

HERE = Path(__file__).resolve().parent
DEFAULT_FOLDER = ROOT / "data" / "cluster"
# What pooling needs of the server itself (PgBouncer passes no startup options) and what the standby needs.
# The standby reports its replay every second, so the primary's replay_lag is current (historyhub.databases.replica).
SERVER_SETTINGS = (
    "timezone=UTC", "jit=off", "wal_level=replica", "max_wal_senders=10", "hot_standby=on",
    "wal_receiver_status_interval=1s",
)  # fmt: skip
START_SECONDS = 120
# Each app process's pool of connections to PgBouncer, which multiplexes them onto its 20 server connections, so
# a larger pool costs the primary nothing: half for the requests that do not wait (REQUEST_THREADS), six for the
# waits' and streams' turns (historyhub.live.turns), the rest for the threads beside them (places renewed and
# given back, the replica's check). With 4, a burst of 2,000 waits starved it (docs/scaling.md, "Measured").
POOL_SIZE = 16
REQUEST_THREADS = 8
LIVE_DATABASE_TURNS = 6
# Connections the balancer takes at once: every wait is one for up to 60 s (10,000 in make bench-cluster), and the
# requests beside them. HAProxy needs two open files for each, and some spare.
BALANCER_CONNECTIONS = 19_000
SPARE_OPEN_FILES = 200


class Standby(ThrowawayPostgres):
    """A streaming replica of ``primary``: a base backup that follows it (``-R`` writes primary_conninfo)."""

    def clone(self, primary: ThrowawayPostgres) -> "Standby":
        self.give_to_owner(self.folder)
        self._run(
            str(self.bin / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
            "-D", str(self.data), "-R", "-X", "stream", "--no-sync", "--checkpoint=fast",
        )  # fmt: skip
        self.start()
        return self


class PgBouncer:
    """PgBouncer in transaction mode in front of one server, in a folder of its own (as root, ``postgres`` runs it:
    it refuses root). ``wait_seconds``: how long a client may wait for a server connection before an error."""

    def __init__(self, server_port: int, wait_seconds: int = 10, folder: str | None = None, port: int | None = None):
        self.folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="hh-pgbouncer-"))
        self.port = port or free_port()
        self.server_port = server_port
        self.wait_seconds = wait_seconds
        self.owner = "postgres" if os.geteuid() == 0 else None

    def url(self, database: str = "historyhub") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> "PgBouncer":
        template = string.Template((HERE / "pgbouncer.ini").read_text())
        values = {"port": self.port, "folder": self.folder, "server_port": self.server_port}
        values["query_wait_timeout"] = self.wait_seconds
        (self.folder / "pgbouncer.ini").write_text(template.substitute(values))
        (self.folder / "userlist.txt").write_text('"postgres" ""\n')
        command = ["pgbouncer", "-d", str(self.folder / "pgbouncer.ini")]
        if self.owner:
            entry = pwd.getpwnam(self.owner)
            for path in (self.folder, self.folder / "pgbouncer.ini", self.folder / "userlist.txt"):
                os.chown(path, entry.pw_uid, entry.pw_gid)
            command = ["runuser", "-u", self.owner, "--", *command]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"pgbouncer did not start:\n{result.stdout}{result.stderr}")
        wait_for_port(self.port, "pgbouncer", self.folder / "pgbouncer.log")
        return self

    def pid(self) -> int | None:
        try:
            return int((self.folder / "pgbouncer.pid").read_text())
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        pid = self.pid()
        if pid is not None:
            # SIGINT: PgBouncer waits for the transactions in flight, then exits.
            end_process(pid, signal.SIGINT, group=False)
        subprocess.run(["rm", "-rf", str(self.folder)], check=False)


@dataclass
class State:
    """Everything ``stop`` and the cluster's users need to find what ``start`` left running."""

    folder: str
    url: str
    primary: dict
    standby: dict
    pgbouncer: dict
    replica_pgbouncer: dict
    haproxy: dict
    servers: list = field(default_factory=list)
    keys: dict = field(default_factory=dict)
    environment: dict = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path) -> "State":
        return cls(**json.loads((folder / "state.json").read_text()))

    def write(self) -> None:
        path = Path(self.folder) / "state.json"
        path.write_text(json.dumps(asdict(self), indent=2))
        path.chmod(0o600)


def start(folder: Path = DEFAULT_FOLDER, servers: int = 3, workers: int = 1, **extra: str) -> State:
    """Start it all; on any failure stop what started and raise. ``extra``: more of the servers' environment."""
    folder = Path(folder)
    if (folder / "state.json").exists():
        raise RuntimeError(f"a cluster already runs from {folder}: make cluster-stop first")
    folder.mkdir(parents=True, exist_ok=True)
    state = State(folder=str(folder), url="", primary={}, standby={}, pgbouncer={}, replica_pgbouncer={}, haproxy={})
    try:
        primary = ThrowawayPostgres(settings=SERVER_SETTINGS)
        state.primary = {"folder": str(primary.folder), "port": primary.port}
        state.write()
        primary.create()
        standby = Standby(settings=SERVER_SETTINGS)
        state.standby = {"folder": str(standby.folder), "port": standby.port}
        state.write()
        standby.clone(primary)
        bouncer = PgBouncer(primary.port)
        state.pgbouncer = {"folder": str(bouncer.folder), "port": bouncer.port}
        replica_bouncer = PgBouncer(standby.port, wait_seconds=1)
        state.replica_pgbouncer = {"folder": str(replica_bouncer.folder), "port": replica_bouncer.port}
        state.write()
        bouncer.start()
        replica_bouncer.start()
        balancer_port = free_port()
        state.url = f"http://127.0.0.1:{balancer_port}"
        environment = production_environment(
            folder,
            bouncer.url(),
            DATABASE_TRANSACTION_POOLING="True",
            DATABASE_LISTEN_URL=primary.url(),
            DATABASE_REPLICA_URL=replica_bouncer.url(),
            DATABASE_POOL_SIZE=str(POOL_SIZE),
            REQUEST_THREADS=str(REQUEST_THREADS),
            LIVE_DATABASE_TURNS=str(LIVE_DATABASE_TURNS),
            HISTORYHUB_PUBLIC_URL=state.url,
            **extra,
        )
        state.environment = environment
        # Migrations straight on the primary, once, before any server starts (each bin/start then finds none).
        direct = {**environment, "DATABASE_URL": primary.url(), "DATABASE_TRANSACTION_POOLING": "False"}
        direct.pop("DATABASE_REPLICA_URL")
        state.keys = prepare(direct)._asdict()
        state.write()
        started = [
            ProductionServer(environment, folder / f"server-{number}.log", workers=workers)
            for number in range(1, servers + 1)
        ]
        # All at once (each bin/start finds nothing to migrate); recorded as each is launched, so a failure stops it.
        with ThreadPoolExecutor(max_workers=servers) as starting:
            waits = [starting.submit(server.start, START_SECONDS) for server in started]
            while not all(server.process for server in started) and not any(wait.done() for wait in waits):
                time.sleep(0.05)
            for server in started:
                if server.process is not None:
                    state.servers.append({"pid": server.process.pid, "port": server.port})
            state.write()
            for wait in waits:
                wait.result()
        state.haproxy = start_haproxy(folder, balancer_port, [server["port"] for server in state.servers])
        state.write()
        wait_until_healthy(state.url, folder / "haproxy.log")
    except BaseException:
        stop(folder)
        raise
    return state


def start_haproxy(folder: Path, port: int, server_ports: list[int]) -> dict:
    """HAProxy in front of the servers: as many processes as its connections need open files, all on one port.

    Each connection takes two open files (client and server). Where this user may not raise its limit that far
    (a container without CAP_SYS_RESOURCE keeps the hard limit it was given), several processes share the port
    (HAProxy listens with SO_REUSEPORT, so the kernel spreads new connections over them), each with the maxconn
    its own files allow; each balances by its own least connections."""
    open_files = raise_open_files()
    per_process = min(BALANCER_CONNECTIONS, (open_files - SPARE_OPEN_FILES) // 2)
    count = -(-BALANCER_CONNECTIONS // per_process)
    lines = [f"    server app{number} 127.0.0.1:{server_port}" for number, server_port in enumerate(server_ports, 1)]
    values = {"port": port, "servers": "\n".join(lines), "maxconn": per_process}
    config = string.Template((HERE / "haproxy.cfg").read_text()).substitute(values)
    (folder / "haproxy.cfg").write_text(config)
    pids = []
    with (folder / "haproxy.log").open("ab") as log:
        for _ in range(count):
            process = subprocess.Popen(
                ["haproxy", "-db", "-f", str(folder / "haproxy.cfg")],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            pids.append(process.pid)
    return {"pid": pids[0], "pids": pids, "port": port, "maxconn": per_process}


def raise_open_files() -> int:
    """Raise this process's open files (which HAProxy inherits) as far as BALANCER_CONNECTIONS need and the hard
    limit allows, or further where the user may (root with CAP_SYS_RESOURCE); the limit it ends with."""
    wanted = 2 * BALANCER_CONNECTIONS + SPARE_OPEN_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for limit in ((wanted, max(hard, wanted)), (min(wanted, hard), hard)):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, limit)
            return limit[0]
        except (ValueError, OSError):
            continue
    return soft


def stop(folder: Path = DEFAULT_FOLDER) -> bool:
    """Stop whatever ``start`` left running from ``folder`` and remove it; whether there was anything."""
    folder = Path(folder)
    try:
        state = State.read(folder)
    except FileNotFoundError:
        return False
    for pid in state.haproxy.get("pids", [state.haproxy["pid"]]) if state.haproxy else ():
        end_process(pid, signal.SIGTERM)
    # The whole group of each: the server's master and workers, its notification worker and its sweep. All at
    # once: each may take its graceful timeout to end.
    with ThreadPoolExecutor(max_workers=max(1, len(state.servers))) as ending:
        list(ending.map(lambda server: end_process(server["pid"], signal.SIGTERM), state.servers))
    for bouncer in (state.pgbouncer, state.replica_pgbouncer):
        if bouncer:
            PgBouncer(0, folder=bouncer["folder"], port=bouncer["port"]).stop()
    for database in (state.standby, state.primary):
        if database:
            ThrowawayPostgres(port=database["port"], folder=database["folder"]).remove()
    subprocess.run(["rm", "-rf", str(folder)], check=False)
    return True


def end_process(pid: int, first: signal.Signals, group: bool = True, patience: float = 30) -> None:
    """Send ``first`` to the process (its group, if ``group``), then SIGKILL if it has not ended within ``patience``."""
    kill = os.killpg if group else os.kill
    try:
        kill(pid, first)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if not alive(pid, group):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        kill(pid, signal.SIGKILL)


def alive(pid: int, group: bool = False) -> bool:
    try:
        (os.killpg if group else os.kill)(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not group:
        # A zombie (our own child not yet reaped) has ended.
        try:
            return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
        except (OSError, IndexError):
            return False
    return True


def wait_for_port(port: int, name: str, log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not listen on {port} within {timeout} s:\n{read(log)}")


def wait_until_healthy(url: str, log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except (OSError, urllib.error.HTTPError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the balancer did not answer /healthz within {timeout} s:\n{read(log)}")


def read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""

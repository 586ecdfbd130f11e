"""The production server, started the only way production starts it: ``bin/start``.

Its settings come from the environment, as in production (workers, threads,
and whatever else ``bin/start`` reads); the harness only chooses the address.
"""

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
START_SECONDS = 120


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, env, log_path):
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log_path = log_path
        env = {**env, "BIND": self.url.removeprefix("http://")}
        with open(log_path, "wb") as log:
            # A session of its own, so stopping it stops every worker it started.
            self.process = subprocess.Popen(
                [str(REPO / "bin" / "start")],
                cwd=REPO,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_until_up()

    @property
    def pid(self):
        return self.process.pid

    def _wait_until_up(self):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"bin/start exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the server did not answer /healthz within {START_SECONDS} s:\n{self.log_tail()}")

    def log_tail(self, lines=30):
        return "\n".join(Path(self.log_path).read_text(errors="replace").splitlines()[-lines:])

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def settings():
    """What ``bin/start`` runs, and the settings it reads as they are now (the environment, else its defaults)."""
    script = (REPO / "bin" / "start").read_text()
    program = re.search(r"^exec (\S+)", script, re.MULTILINE)
    values = {
        name: os.environ.get(name, default)
        for name, default in re.findall(r"\$\{(\w+):-([^}]*)\}", script)
        if name != "BIND"
    }
    return (program.group(1) if program else "bin/start"), values


def descendants(pid):
    """Every process below ``pid`` (a server's workers), from /proc."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, pending = [], [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def rss_bytes(pid):
    """A process's resident set size now; 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0

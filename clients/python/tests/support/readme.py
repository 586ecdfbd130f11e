"""A README's examples as a new user finds them: the files it says to save, and the commands it says to run.

A file is a ```python block whose first line names it (``# approve_refund.py``);
a command is a line of a ```sh block that runs something from the agent's
virtualenv, ``agent/bin/…`` (the one the READMEs make with ``python -m venv
agent``). In the suite that virtualenv is the one the wheel is installed in.
"""

import os
import re
import select
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from time import monotonic

BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
FILE_NAME = re.compile(r"# ([\w-]+\.py)\n")
AGENT_BIN = "agent/bin/"
LINE_SECONDS = 60


class Readme:
    def __init__(self, path):
        self.path = Path(path)
        blocks = BLOCK.findall(self.path.read_text())
        self.files = {
            named.group(1): code for kind, code in blocks if kind == "python" and (named := FILE_NAME.match(code))
        }
        self.commands = [
            line for kind, code in blocks if kind == "sh" for line in code.splitlines() if line.startswith(AGENT_BIN)
        ]

    def save(self, folder):
        """Write every example file into ``folder``, the user's project folder."""
        for name, code in self.files.items():
            (Path(folder) / name).write_text(code)

    def command(self, mentioning):
        """The one command that mentions ``mentioning``, as arguments, run from this virtualenv's bin folder."""
        matching = [line for line in self.commands if mentioning in line]
        assert len(matching) == 1, f"{self.path} has {len(matching)} commands with {mentioning}: {self.commands}"
        program, *arguments = shlex.split(matching[0], comments=True)
        return [str(Path(sys.executable).parent / program.removeprefix(AGENT_BIN)), *arguments]


def environment(server, key):
    """What the READMEs have the user export, for this server and key."""
    # A terminal shows each line as it is printed; a pipe would hold them back until the example ends.
    return {**os.environ, "HISTORYHUB_URL": server.url, "HISTORYHUB_API_KEY": key, "PYTHONUNBUFFERED": "1"}


class Running:
    """An example's process, read line by line within a deadline, so a stuck example fails instead of hanging."""

    def __init__(self, arguments, folder, environment):
        self.errors = open(Path(folder) / "stderr.txt", "w+")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            arguments, cwd=folder, env=environment, stdout=subprocess.PIPE, stderr=self.errors
        )
        self.pending = b""

    def interrupt(self):
        """Ctrl-C, as a user stops the example; its exit code."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=LINE_SECONDS)

    def stop(self):
        """End the example's process, as a user's Ctrl-C or a crash would, wherever it is."""
        self.process.kill()
        self.process.wait()
        self.process.stdout.close()
        self.errors.close()

    def line(self, seconds=LINE_SECONDS):
        """The next line the example prints."""
        deadline = monotonic() + seconds
        while b"\n" not in self.pending:
            remaining = deadline - monotonic()
            assert remaining > 0, f"no line from the example within {seconds} s: {self.stderr()}"
            readable, _, _ = select.select([self.process.stdout], [], [], remaining)
            if readable:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                assert chunk, f"the example exited ({self.process.wait()}) without a line: {self.stderr()}"
                self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode()

    def exit_code(self, seconds=LINE_SECONDS):
        return self.process.wait(timeout=seconds)

    def stderr(self):
        self.errors.seek(0)
        return self.errors.read()[-3000:]

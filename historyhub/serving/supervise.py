"""Keep one command running beside the server (docs/operations.md, "Workers that stay alive").

    python -m historyhub.serving.supervise deliver -- python manage.py deliver --with-parent

``bin/start`` (and ``make run``) start one of these for the notification worker and one for the sweep, then
become the server. If the command ends, however it ended (a crash, a SIGKILL, the kernel's OOM killer), it is
started again after ``RESTART_SECONDS``. When the server ends (this process's parent changes) or this process is
told to stop (SIGTERM, SIGINT), the command gets SIGTERM, then SIGKILL after ``STOP_SECONDS``, and this ends too.
The command itself ends when this process does (``deliver --with-parent``, ``sweep --every`` watch their parent).

It imports nothing of Django: it starts in a moment, and nothing it does can fail on the database.
"""

import argparse
import os
import signal
import subprocess
import sys
import time

# A dead command is started again after this long: soon, yet a command that cannot start does not spin.
RESTART_SECONDS = 1.0
# How often the parent is looked at, and how long a command has to end after SIGTERM.
LOOK_SECONDS = 0.25
STOP_SECONDS = 10.0


class Supervisor:
    def __init__(self, name: str, command: list[str]):
        self.name = name
        self.command = command
        self.parent = os.getppid()
        self.stopping = False
        self.child: subprocess.Popen | None = None

    def say(self, message: str) -> None:
        print(f"[supervise {self.name}] {message}", file=sys.stderr, flush=True)

    def stop(self, *_signal) -> None:
        self.stopping = True

    def should_stop(self) -> bool:
        return self.stopping or os.getppid() != self.parent

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        while not self.should_stop():
            self.child = subprocess.Popen(self.command)
            self.say(f"started pid {self.child.pid}")
            while self.child.poll() is None and not self.should_stop():
                time.sleep(LOOK_SECONDS)
            if self.child.returncode is not None:
                self.say(f"pid {self.child.pid} ended ({describe(self.child.returncode)}); starting it again")
                self.pause(RESTART_SECONDS)
        self.end_child()
        return 0

    def pause(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.should_stop():
            time.sleep(min(LOOK_SECONDS, max(0.0, deadline - time.monotonic())))

    def end_child(self) -> None:
        if self.child is None or self.child.poll() is not None:
            return
        self.child.terminate()
        try:
            self.child.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()


def describe(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Keep a command running until this process's parent ends.")
    parser.add_argument("name", help="What the command is, for the log.")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command and its arguments.")
    options = parser.parse_args(argv)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("give the command to keep running after --")
    return Supervisor(options.name, command).run()


if __name__ == "__main__":
    sys.exit(main())

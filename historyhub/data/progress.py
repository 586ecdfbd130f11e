"""The progress line of ``manage.py export`` and ``manage.py import`` (docs/data.md, "Progress"): how far a long
run has come, on standard error, so that an export written to standard output stays the export alone."""

import time

from django.core.management.base import OutputWrapper

from historyhub.data.tallies import Tally

# Without a terminal (a log, a CI job) a line every this many sessions; on one, the line is rewritten in place at
# most this often.
EVERY_SESSIONS = 100
TERMINAL_SECONDS = 0.5


class ProgressLine:
    def __init__(self, stream: OutputWrapper, verb: str, every: int = EVERY_SESSIONS):
        self.stream, self.verb, self.every = stream, verb, every
        self.terminal = stream.isatty()
        self.said_at, self.said_sessions = 0.0, 0

    def update(self, tally: Tally) -> None:
        """Say how far ``tally`` has come, if it is time to."""
        if self.terminal:
            if time.monotonic() - self.said_at >= TERMINAL_SECONDS:
                self.say(f"\r{self.verb} {tally.said()} so far")
                self.said_at = time.monotonic()
        elif tally.sessions - self.said_sessions >= self.every:
            self.say(f"{self.verb} {tally.said()} so far\n")
            self.said_sessions = tally.sessions

    def end(self) -> None:
        """Leave the line, so what is written next starts on its own."""
        if self.terminal and self.said_at:
            self.say("\n")

    def say(self, text: str) -> None:
        # As written: no line end added, and not in the error colour a command's standard error has.
        self.stream.write(text, style_func=plain, ending="")
        self.stream.flush()


def plain(text: str) -> str:
    return text

"""On SQLite: a committed write wakes this process's subscribers at once and is appended to a change file
beside the database, which the other processes on the machine watch.

Watching costs one ``stat`` every ``POLL_SECONDS`` per process, whatever the
number of waiters, and no database query: the file says what changed. A line
lost in a crash between commit and append only delays a waiter to its
deadline, where it reads the database again.
"""

import json
import logging
import os
import threading

from historyhub.live.changes import Change
from historyhub.live.subscriptions import SignalThread

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.05
# Past this size the next writer starts a new file; watchers see the new inode and wake everyone once.
ROTATE_BYTES = 1024 * 1024


class ChangeFile:
    """Lines of ``[pid, change]`` in JSON, appended with one ``write`` each (O_APPEND keeps them whole)."""

    def __init__(self, path, rotate_bytes=ROTATE_BYTES):
        self.path = path
        self.rotate_bytes = rotate_bytes

    def append(self, change):
        line = json.dumps([os.getpid(), change.encode()]) + "\n"
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, line.encode())
            size = os.fstat(descriptor).st_size
        finally:
            os.close(descriptor)
        if size > self.rotate_bytes:
            fresh = f"{self.path}.{os.getpid()}.{threading.get_ident()}"
            os.close(os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            os.replace(fresh, self.path)

    def position(self):
        """(inode, size) now, creating the file if it is missing."""
        os.close(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))
        state = os.stat(self.path)
        return state.st_ino, state.st_size


class Watcher(SignalThread):
    """A thread that reads what other processes append to the change file and relays it to the hub."""

    def __init__(self, hub, change_file):
        super().__init__(hub)
        self.change_file = change_file
        self._inode, self._offset = change_file.position()

    def _run(self):
        while not self._stopping.wait(POLL_SECONDS):
            try:
                self._look()
            except FileNotFoundError:
                # Deleted by a clean-up: start a new one, and have everyone look again once.
                self._inode, self._offset = self.change_file.position()
                self.hub.publish_unknown()
            except ValueError:
                # A line we cannot parse names no session we can trust: everyone looks again.
                self.hub.publish_unknown()
            except OSError as error:
                logger.warning("Live updates: cannot read %s (%s)", self.change_file.path, error)

    def _look(self):
        state = os.stat(self.change_file.path)
        if (state.st_ino, state.st_size) == (self._inode, self._offset):
            return
        with open(self.change_file.path, "rb") as changes:
            state = os.fstat(changes.fileno())
            if state.st_ino != self._inode or state.st_size < self._offset:
                # A new file: what was appended to the old one since the last look may be lost.
                self._inode, self._offset = state.st_ino, 0
                self.hub.publish_unknown()
            changes.seek(self._offset)
            chunk = changes.read(state.st_size - self._offset)
        # A line still being written waits for the next look.
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self._offset += len(complete)
        me = os.getpid()
        changes = [Change.decode(text) for pid, text in map(json.loads, complete.splitlines()) if pid != me]
        if changes:
            self.hub.publish(changes)

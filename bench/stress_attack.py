"""The stress run's attack on the serving layer (docs/stress.md), beside the clients, and its /healthz probe.

Standard library only, threads of the stress process:

- SLOW_BODIES connections, without logging in or with the run's key, each promise a body of
  100,000 bytes and send a byte every TRICKLE_SECONDS; when the server answers or drops one,
  another takes its place;
- every OVERSIZED_PAUSE seconds, a request whose headers are 100 KB, over the 64 KiB limit;
- every PROBE_PAUSE seconds, ``GET /healthz``.

Each records what the server did: the status it answered (and the error code), or ``dropped``
when it closed the connection without an answer, or ``held`` when the run ended first.
"""

import json
import select
import socket
import threading
import time

SLOW_BODIES = 30
TRICKLE_SECONDS = 1.0
OVERSIZED_PAUSE = 1.0
OVERSIZED_HEADER_BYTES = 100_000
PROBE_PAUSE = 0.2
# Longer than any answer the server owes a probe (its database check gives up after 3 s).
PROBE_TIMEOUT = 10
READ_TIMEOUT = 10


class Attack:
    def __init__(self, base, key):
        host, port = base.removeprefix("http://").split(":")
        self.address = (host, int(port))
        self.key = key
        self.stopping = threading.Event()
        self.slow_bodies, self.oversized, self.probes = [], [], []
        self.threads = [
            threading.Thread(target=self._slow_body, args=(number,), daemon=True) for number in range(SLOW_BODIES)
        ]
        self.threads += [
            threading.Thread(target=self._repeat, args=(self._oversized, OVERSIZED_PAUSE), daemon=True),
            threading.Thread(target=self._repeat, args=(self._probe, PROBE_PAUSE), daemon=True),
        ]

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join()

    def record(self):
        return {"slowBodies": self.slow_bodies, "oversized": self.oversized, "probes": self.probes}

    def _slow_body(self, number):
        # Half without logging in, half through the API with the run's write key.
        if number % 2:
            head = self._head("POST", "/accounts/login/", {"Content-Type": "application/x-www-form-urlencoded"})
        else:
            head = self._head("POST", "/api/v1/sessions", {"Authorization": f"Bearer {self.key}"})
        while not self.stopping.is_set():
            self.slow_bodies.append(self._exchange(head, self._trickle, READ_TIMEOUT))

    def _trickle(self, connection):
        while not self.stopping.is_set():
            readable, _, _ = select.select([connection], [], [], TRICKLE_SECONDS)
            if readable:
                return _answer(connection)
            connection.sendall(b"x")
        return {"outcome": "held"}

    def _oversized(self):
        head = self._head("GET", "/api/v1/sessions", {"X-Padding": "a" * OVERSIZED_HEADER_BYTES})
        self.oversized.append(self._exchange(head, _answer, READ_TIMEOUT))

    def _probe(self):
        self.probes.append(self._exchange(self._head("GET", "/healthz", {}), _answer, PROBE_TIMEOUT))

    def _exchange(self, head, then, timeout):
        """A new connection: send ``head``, and what ``then(connection)`` makes of the server's part, timed."""
        entry = {"t0": time.monotonic()}
        try:
            with socket.create_connection(self.address, timeout=timeout) as connection:
                connection.sendall(head)
                entry.update(then(connection))
        except (ConnectionResetError, BrokenPipeError):
            entry["outcome"] = "dropped"
        except OSError as error:
            entry.update(outcome="error", error=f"{type(error).__name__}: {error}")
        entry["t1"] = time.monotonic()
        return entry

    def _repeat(self, action, pause):
        while not self.stopping.wait(pause):
            action()

    def _head(self, method, path, headers):
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.address[0]}", "Connection: close"]
        if method == "POST":
            lines.append("Content-Length: 100000")
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _answer(connection):
    """What the server sent before it closed the connection: its status and error code, or ``dropped``."""
    received = b""
    try:
        while chunk := connection.recv(65536):
            received += chunk
    except ConnectionResetError:  # after the answer, if the client had sent more than the server read
        pass
    head, _, body = received.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 "):
        return {"outcome": "dropped"}
    entry = {"outcome": "answered", "status": int(head.split()[1])}
    try:
        entry["body"] = json.loads(body)
    except ValueError:
        entry["text"] = body[:200].decode("utf-8", "replace")
    return entry

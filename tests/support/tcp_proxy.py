"""A TCP proxy in front of a real server, which a test cuts to play a database outage.

The machine's PostgreSQL is shared, so tests never stop it: they put this
proxy between the server under test and PostgreSQL, and then

- ``drop_connections()``: close every open connection, as a restart does;
- ``refuse()``: also stop listening, so new connections are refused (the server is down);
- ``blackhole()``: accept new connections and never answer (a host that does not respond);
- ``forward()``: listen and forward again (the database is back).

``passed_on(connections)`` waits until those connections, closed by the server behind, are closed on the client's
side too, as the network does at once and the proxy's threads do a moment later.
"""

import contextlib
import socket
import threading
import time

BUFFER = 65536


class TcpProxy:
    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.lock = threading.Lock()
        self.sockets = set()
        self.listener = None
        self.answering = True
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.forward()

    def forward(self):
        self.answering = True
        self.listen()

    def blackhole(self):
        self.answering = False
        self.drop_connections()
        self.listen()

    def refuse(self):
        with self.lock:
            listener, self.listener = self.listener, None
        if listener is not None:
            listener.close()
        self.drop_connections()

    def drop_connections(self):
        with self.lock:
            sockets, self.sockets = self.sockets, set()
        for sock in sockets:
            close(sock)

    def close(self):
        self.refuse()

    def listen(self):
        with self.lock:
            if self.listener is not None:
                return
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(64)
            # accept() wakes up now and then to notice that the listener was closed.
            listener.settimeout(0.2)
            self.listener = listener
        threading.Thread(target=self.accept, args=(listener,), daemon=True).start()

    def accept(self, listener):
        while self.listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            with self.lock:
                self.sockets.add(client)
            if self.answering:
                threading.Thread(target=self.connect, args=(client,), daemon=True).start()

    def connect(self, client):
        try:
            upstream = socket.create_connection(self.target, timeout=5)
        except OSError:
            close(client)
            return
        upstream.settimeout(None)
        with self.lock:
            if client not in self.sockets:
                close(upstream)
                return
            self.sockets.add(upstream)
        threading.Thread(target=self.pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=self.pump, args=(upstream, client), daemon=True).start()

    def pump(self, source, destination):
        try:
            while data := source.recv(BUFFER):
                destination.sendall(data)
        except OSError:
            pass
        close(source)
        close(destination)
        with self.lock:
            self.sockets.discard(source)
            self.sockets.discard(destination)

    def open_connections(self):
        """The sockets of the connections open now, both ends of each."""
        with self.lock:
            return set(self.sockets)

    def passed_on(self, connections, timeout=10):
        """Wait until every one of ``connections`` (``open_connections()`` earlier), each closed by the server
        behind, is closed on the client's side too: its pump has read the end and passed it on."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if not connections & self.sockets:
                    return
            time.sleep(0.01)
        raise AssertionError("the proxy did not pass on every closed connection in time")


def close(sock):
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()

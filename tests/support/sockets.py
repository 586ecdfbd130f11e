"""Raw HTTP/1.1 over one TCP connection: what a client library will not send on purpose.

A head or a body a few bytes at a time, a header too large, a byte the parser refuses, a
connection left idle; then the answer as the server sent it, or whether it closed the connection.
"""

import contextlib
import http.client
import json
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from tests.support.readers import envelope


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self):
        assert self.headers["Content-Type"].startswith("application/json"), (self.status, self.body[:300])
        return json.loads(self.body)

    def error(self):
        return envelope(self.headers["Content-Type"], self.body)


class RawConnection:
    def __init__(self, url, timeout=10):
        address = urlsplit(url)
        self.timeout = timeout
        self.socket = socket.create_connection((address.hostname, address.port), timeout=timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def send(self, data):
        self.socket.sendall(data)

    def send_head(self, method, target, headers):
        """The request line and ``headers`` (a dict of str or bytes values), and the blank line after them."""
        lines = [f"{method} {target} HTTP/1.1".encode()]
        lines += [
            name.encode() + b": " + (value if isinstance(value, bytes) else value.encode())
            for name, value in headers.items()
        ]
        self.send(b"\r\n".join(lines) + b"\r\n\r\n")

    def answer(self, timeout=None):
        """The next answer, read whole."""
        self.socket.settimeout(timeout or self.timeout)
        response = http.client.HTTPResponse(self.socket)
        response.begin()
        return Answer(response.status, response.headers, response.read())

    def everything(self, timeout=None):
        """All the server sends until it closes the connection."""
        self.socket.settimeout(timeout or self.timeout)
        received = b""
        while chunk := self.socket.recv(65536):
            received += chunk
        return received

    def closed_by_server(self, timeout):
        """Whether the server closes the connection within ``timeout`` seconds; what it sends first is dropped."""
        self.socket.settimeout(timeout)
        try:
            while self.socket.recv(65536):
                pass
        except TimeoutError:
            return False
        except ConnectionResetError:
            pass
        return True

    def waiting(self):
        """Whether the connection is open and the server has sent nothing on it: no answer, no close."""
        self.socket.setblocking(False)
        try:
            self.socket.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            self.socket.settimeout(self.timeout)
        return False

    def close(self):
        with contextlib.suppress(OSError):
            self.socket.close()

"""A tiny local HTTP/1.1 server that answers from a script and records what it was sent.

For what the live server cannot be made to do on purpose: fail a first attempt,
drop a connection, answer 503 with Retry-After. Each answer is
``(status, headers, body)``, ``DROP`` to close the connection without one, or,
in front of a real server (``forward_to``), ``FORWARD`` to pass the request on
and its answer back, or ``FORWARD_THEN_DROP`` to pass it on and lose the answer.
"""

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

DROP = "drop"
FORWARD = "forward"
FORWARD_THEN_DROP = "forward then drop"


class TinyServer:
    def __init__(self, answers, forward_to=None):
        self.answers = list(answers)
        self.requests = []
        self.connections = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                with server._lock:
                    server.connections += 1

            def handle_one_request(self):
                self.raw_requestline = self.rfile.readline(65537)
                if not self.raw_requestline or not self.parse_request():
                    self.close_connection = True
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with server._lock:
                    server.requests.append(
                        {
                            "method": self.command,
                            "path": self.path,
                            "headers": dict(self.headers),
                            "body": json.loads(body) if body else None,
                        }
                    )
                    answer = server.answers.pop(0) if server.answers else (200, {}, {})
                if answer in (FORWARD, FORWARD_THEN_DROP):
                    status, headers, content = forward(forward_to, self.command, self.path, self.headers, body)
                    answer = DROP if answer == FORWARD_THEN_DROP else (status, headers, content)
                if answer == DROP:
                    self.close_connection = True
                    return
                status, headers, payload = answer
                content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                if "Content-Type" not in headers:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(content)
                self.wfile.flush()

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()


def forward(url, method, path, headers, body):
    """Send the request on to ``url``: (status, the answer's headers worth passing back, body)."""
    target = urlsplit(url)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    try:
        passed = {name: value for name, value in headers.items() if name.lower() not in ("host", "connection")}
        connection.request(method, path, body=body or None, headers=passed)
        response = connection.getresponse()
        kept = {name: value for name, value in response.getheaders() if name.lower() == "idempotent-replayed"}
        return response.status, kept, response.read()
    finally:
        connection.close()

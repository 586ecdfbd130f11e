"""A local stand-in for Slack's Web API: a real HTTP server on localhost, which tests put at SLACK_API_URL.

It answers the methods HistoryHub calls as Slack does (``chat.postMessage``, ``chat.update``,
``chat.postEphemeral``), refuses any token but its own with ``invalid_auth`` and any other method with
``unknown_method``, and records every request.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class SlackWebApi:
    def __init__(self, token):
        self.token = token
        self.requests = []
        self._posted = 0
        self._lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.answer()

            def do_POST(self):
                self.answer()

            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                # Slack takes a method's arguments in the query, a form body or a JSON body alike.
                form = self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded")
                arguments = parse_qs(parts.query) | (parse_qs(body.decode()) if form else {})
                request = {
                    "method": self.command,
                    "path": parts.path,
                    "arguments": {name: values[0] for name, values in arguments.items()},
                    "headers": dict(self.headers),
                    "body": json.loads(body) if body and not form else None,
                }
                with stand_in._lock:
                    stand_in.requests.append(request)
                    content = stand_in.answer_to(request)
                encoded = json.dumps(content).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(encoded)))
                self.end_headers()
                self.wfile.write(encoded)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def answer_to(self, request):
        """Slack's answer to ``request`` (Slack answers its errors with 200 and ``ok`` false)."""
        path = request["path"]
        if request["headers"].get("Authorization") != f"Bearer {self.token}":
            return {"ok": False, "error": "invalid_auth"}
        if path == "/chat.postMessage":
            self._posted += 1
            return {"ok": True, "channel": request["body"]["channel"], "ts": f"1700000000.{self._posted * 100:06d}"}
        if path == "/chat.update":
            return {"ok": True, "channel": request["body"]["channel"], "ts": request["body"]["ts"]}
        if path == "/chat.postEphemeral":
            return {"ok": True, "message_ts": "1700000001.000100"}
        return {"ok": False, "error": "unknown_method"}

    def called(self, method):
        return [request for request in self.requests if request["path"] == f"/{method}"]

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

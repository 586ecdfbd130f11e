"""uvicorn's HTTP/1.1 protocol (httptools) with the limits it lacks before a request reaches the app.

- A request head, the request line and the headers, holds at most HISTORYHUB_MAX_HEADER_BYTES.
  Its bytes are counted before the parser sees them, so an endless header is refused once it passes
  the limit instead of being buffered: 414 ``uri_too_long`` while the request line is still
  arriving, 431 ``headers_too_large`` after.
- A connection has REQUEST_HEADER_TIMEOUT seconds to send a whole head, from when it opens or its
  last answer was sent; then it is closed without an answer. uvicorn's keep-alive timeout
  (gunicorn's ``--keep-alive``) closes a connection that sends nothing after an answer sooner. A
  request being answered (its body arriving, a wait, a live stream) is never cut by either.
- A request the parser refuses is answered 400 ``invalid_input`` in the API's JSON shape, not with
  uvicorn's plain text.

A refused connection is not read any further: the answer is sent, the sending side shut down, and
what the client still sends is thrown away for a moment (LINGER_SECONDS, LINGER_BYTES at most)
before the connection closes, so the client reads the answer rather than a reset.
"""

from django.conf import settings
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from historyhub.faults import error_response
from historyhub.serving import answers

# How long, and how much, a refused connection throws away of what its client still sends before it closes.
LINGER_SECONDS = 1
LINGER_BYTES = 1024 * 1024


class HttpProtocol(HttpToolsProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.head_limit = settings.HISTORYHUB_MAX_HEADER_BYTES
        self.head_timeout = settings.REQUEST_HEADER_TIMEOUT
        # The head being read: its bytes so far and whether its request line has ended.
        self.reading_head = True
        self.head_bytes = 0
        self.request_line_read = False
        self.head_timer = None
        self.refused = False
        self.discarded = 0

    def connection_made(self, transport):
        super().connection_made(transport)
        self._start_head_timer()

    def connection_lost(self, exc):
        self._stop_head_timer()
        super().connection_lost(exc)

    def data_received(self, data):
        if self.refused:
            self.discarded += len(data)
            if self.discarded > LINGER_BYTES:
                self.transport.close()
            return
        # The parser gets at most what is left of the head's allowance at a time. A head that begins in
        # the piece where the message before it ends (pipelined requests) counts from the next piece:
        # it may pass the limit by one read from the socket (256 KiB at most) before it is refused.
        while data and not self.refused and not self.transport.is_closing():
            if not self.reading_head:
                super().data_received(data)
                return
            room = self.head_limit - self.head_bytes
            if room <= 0:
                self._refuse_head()
                return
            head, data = data[:room], data[room:]
            self.head_bytes += len(head)
            self.request_line_read = self.request_line_read or b"\n" in head
            super().data_received(head)

    def on_headers_complete(self):
        self.reading_head = False
        self._stop_head_timer()
        super().on_headers_complete()

    def on_message_complete(self):
        super().on_message_complete()
        self.reading_head, self.head_bytes, self.request_line_read = True, 0, False

    def on_response_complete(self):
        super().on_response_complete()
        if not self.transport.is_closing() and not self._answering():
            self._start_head_timer()

    def send_400_response(self, msg):
        # What uvicorn calls when the parser refuses a request.
        message = "The request is not valid HTTP/1.1: see its request line and headers."
        self._refuse(error_response("invalid_input", message, 400))

    def _answering(self):
        """Whether a request is being answered, or waits its turn behind one (pipelined)."""
        return bool(self.pipeline) or (self.cycle is not None and not self.cycle.response_complete)

    def _start_head_timer(self):
        self._stop_head_timer()
        self.head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _stop_head_timer(self):
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self):
        self.head_timer = None
        if not self._answering() and not self.transport.is_closing():
            self.transport.close()

    def _refuse_head(self):
        if self.request_line_read:
            message = f"The request's headers are larger than {self.head_limit} bytes in all."
            response = error_response("headers_too_large", message, 431)
        else:
            message = f"The request line is longer than the {self.head_limit} bytes a request head may hold."
            response = error_response("uri_too_long", message, 414)
        client = ":".join(map(str, self.client)) if self.client else "a client"
        self.logger.warning("Refused a request from %s with %d: %s", client, response.status_code, message)
        self._refuse(response)

    def _refuse(self, response):
        self.refused = True
        self._stop_head_timer()
        self._unset_keepalive_if_required()
        if self._answering():
            # Pipelined behind a request being answered: an answer now would cut into that one's.
            self.transport.close()
            return
        self.transport.write(answers.wire(response, self.server_state.default_headers))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

"""The gunicorn worker that serves ``historyhub.asgi``: uvicorn's, with the settings' limits and told when it stops.

- HTTP/1.1 through ``historyhub.serving.protocol``: request heads limited in size and time.
- Forwarded headers (X-Forwarded-For, X-Forwarded-Proto) believed only from FORWARDED_ALLOW_IPS,
  which is empty unless BEHIND_HTTPS_PROXY: uvicorn's own default, and gunicorn's, trust 127.0.0.1.
- Every line of its logs, the access log's request lines included, redacted as the application's
  are (historyhub.redaction): a key in a URL never reaches a log.
- A worker that stops (a deploy, ``kill -HUP`` of the master, ``--max-requests``) first ends this
  process's waits and dashboard streams: a wait answers 503 ``service_unavailable`` with
  ``Retry-After``, which clients retry on another worker, and a stream closes, which the browser
  reopens. Then uvicorn drains the connections as usual, without waiting out a minute-long wait.
"""

import sys

from django.conf import settings
from gunicorn.arbiter import Arbiter
from uvicorn import Server
from uvicorn_worker import UvicornWorker

from historyhub import live
from historyhub.redaction import RedactCredentials


class ClosingServer(Server):
    async def shutdown(self, sockets=None):
        live.close()
        await super().shutdown(sockets=sockets)


class Worker(UvicornWorker):
    # Django's ASGI handler does not speak the lifespan protocol.
    CONFIG_KWARGS = {"loop": "auto", "http": "historyhub.serving.protocol:HttpProtocol", "lifespan": "off"}

    def init_process(self):
        # In the worker, after the fork: the master's handlers stay as they are. uvicorn's loggers write
        # through these handlers (UvicornWorker gave them gunicorn's), so the filter sees every line.
        for handler in {*self.log.access_log.handlers, *self.log.error_log.handlers}:
            handler.addFilter(RedactCredentials())
        super().init_process()

    async def _serve(self):
        # UvicornWorker._serve, with the server above and the proxies the settings trust; the app
        # is loaded by now, so the settings are too.
        self.config.app = self.wsgi
        self.config.forwarded_allow_ips = settings.FORWARDED_ALLOW_IPS
        server = ClosingServer(config=self.config)
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)

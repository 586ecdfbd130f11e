"""The gunicorn worker that serves ``historyhub.asgi``: uvicorn's, told when it starts to shut down.

A worker that stops (a deploy, ``kill -HUP`` of the master, ``--max-requests``)
first ends this process's waits and dashboard streams: a wait answers 503
``service_unavailable`` with ``Retry-After``, which clients retry on another
worker, and a stream closes, which the browser reopens. Then uvicorn drains the
connections as usual, without waiting out a minute-long wait.
"""

import sys

from gunicorn.arbiter import Arbiter
from uvicorn import Server
from uvicorn_worker import UvicornWorker

from historyhub import live


class ClosingServer(Server):
    async def shutdown(self, sockets=None):
        live.close()
        await super().shutdown(sockets=sockets)


class Worker(UvicornWorker):
    # Django's ASGI handler does not speak the lifespan protocol.
    CONFIG_KWARGS = {"loop": "auto", "http": "auto", "lifespan": "off"}

    async def _serve(self):
        # UvicornWorker._serve, with the server above.
        self.config.app = self.wsgi
        server = ClosingServer(config=self.config)
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)

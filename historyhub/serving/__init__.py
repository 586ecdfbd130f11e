"""The layer between the socket and Django (docs/operations.md, "Between the socket and Django").

- ``worker``: the gunicorn worker ``bin/start`` runs, uvicorn's with this package's protocol,
  the proxy addresses the settings trust, and credentials redacted from its logs;
- ``protocol``: uvicorn's HTTP/1.1 protocol with a size limit and a time limit on request heads,
  and JSON for the requests it cannot parse;
- ``bodies``: request bodies received whole on the event loop, within a time and a size limit,
  before a request takes one of the worker's threads;
- ``health``: ``/healthz`` and ``/healthz/details``, answered without the request threads;
- ``static_files``: whether the static files are collected, and the stamp ``collectstatic --if-stale`` compares;
- ``answers``: Django responses sent from here, where no Django handler runs.

It is a Django app for one reason: its ``collectstatic`` (management/commands/) stands in for Django's.
"""

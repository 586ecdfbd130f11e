"""The Python client's tiny HTTP server (clients/python/tests/support/tiny_server.py), for the server's tests too.

The client package's tests run without the server's, so its copy is the one; this module loads that file.
"""

import importlib.util
from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python" / "tests" / "support" / "tiny_server.py"
_spec = importlib.util.spec_from_file_location("historyhub_client_tests_tiny_server", _SOURCE)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

TinyServer = _module.TinyServer

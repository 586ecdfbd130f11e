"""A live server over real HTTP (the ASGI app under uvicorn), API keys for it, and the Agents SDK without tracing."""

import pytest
from agents import set_tracing_disabled

from historyhub.apikeys.models import ApiKey
from historyhub.client import AsyncHistoryHubClient, HistoryHubClient

# The SDK would otherwise try to export traces to OpenAI.
set_tracing_disabled(True)


@pytest.fixture
def key(asgi_live_server):
    return ApiKey.issue("client tests", "write")[1]


@pytest.fixture
def hub(asgi_live_server, key):
    with HistoryHubClient(asgi_live_server.url, key, timeout=10) as client:
        yield client


@pytest.fixture
def connect(asgi_live_server, key):
    """Opens an AsyncHistoryHubClient inside a test's event loop: ``async with connect() as client``."""
    return lambda **options: AsyncHistoryHubClient(asgi_live_server.url, key, **{"timeout": 10, **options})

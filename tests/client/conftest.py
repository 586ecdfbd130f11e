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
def people_key(asgi_live_server):
    """The key of the people who decide (a client application's, with the decide scope): the agent's key may not."""
    return ApiKey.issue("people", "decide")[1]


@pytest.fixture
def people(asgi_live_server, people_key):
    with HistoryHubClient(asgi_live_server.url, people_key, timeout=10) as client:
        yield client


@pytest.fixture
def connect(asgi_live_server, key, people_key):
    """Opens an AsyncHistoryHubClient inside a test's event loop: ``async with connect() as client``; the
    people who decide connect with ``connect(deciding=True)``."""

    def client(deciding=False, **options):
        return AsyncHistoryHubClient(
            asgi_live_server.url, people_key if deciding else key, **{"timeout": 10, **options}
        )

    return client

"""A live server over real HTTP, API keys for it, and the Agents SDK without tracing."""

import asyncio

import pytest
from agents import set_tracing_disabled

from historyhub.apikeys.models import ApiKey
from historyhub.client import AsyncHistoryHubClient, HistoryHubClient

# The SDK would otherwise try to export traces to OpenAI.
set_tracing_disabled(True)


@pytest.fixture
def key(live_server):
    return ApiKey.issue("client tests", "write")[1]


@pytest.fixture
def hub(live_server, key):
    with HistoryHubClient(live_server.url, key, timeout=10) as client:
        yield client


@pytest.fixture
def connect(live_server, key):
    """Opens an AsyncHistoryHubClient inside a test's event loop: ``async with connect() as client``."""
    return lambda **options: AsyncHistoryHubClient(live_server.url, key, **{"timeout": 10, **options})


def run(coroutine):
    return asyncio.run(coroutine)

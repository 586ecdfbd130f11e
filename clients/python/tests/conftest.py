"""A live HistoryHub for the whole run (its own processes and database), API keys for it, clients of both
kinds, and the Agents SDK without tracing."""

import pytest
from agents import set_tracing_disabled

from historyhub_client import AsyncHistoryHubClient, HistoryHubClient
from tests.support.server import LiveServer

# The SDK would otherwise try to export traces to OpenAI.
set_tracing_disabled(True)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("historyhub")) as live:
        yield live


@pytest.fixture(scope="session")
def key(server):
    """The agent's key: it writes, and may not decide what it asked."""
    return server.create_key("client tests", "write")


@pytest.fixture(scope="session")
def people_key(server):
    """The key of the people who decide (a client application's, with the decide scope): the agent's key may not."""
    return server.create_key("people", "decide")


@pytest.fixture
def hub(server, key):
    with HistoryHubClient(server.url, key, timeout=10) as client:
        yield client


@pytest.fixture
def people(server, people_key):
    with HistoryHubClient(server.url, people_key, timeout=10) as client:
        yield client


@pytest.fixture
def connect(server, key, people_key):
    """Opens an AsyncHistoryHubClient inside a test's event loop: ``async with connect() as client``; the
    people who decide connect with ``connect(deciding=True)``."""

    def client(deciding=False, **options):
        return AsyncHistoryHubClient(server.url, people_key if deciding else key, **{"timeout": 10, **options})

    return client

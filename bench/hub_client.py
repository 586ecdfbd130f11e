"""Every call the benchmark makes to HistoryHub over HTTP, through HistoryHub's
own Python client, in one place (the client is being rewritten). Imports
nothing from Django, so client processes can use it alone.
"""

from historyhub_client import AsyncHistoryHubClient, HistoryHubClient, HistoryHubSession

AGENT = "bench"


def connect(base_url, api_key):
    return HistoryHubClient(base_url, api_key=api_key)


def connect_async(base_url, api_key):
    """The client an agent's event loop uses (HistoryHubSession needs it)."""
    return AsyncHistoryHubClient(base_url, api_key=api_key)


def add_items(client, session_id, items):
    client.add_items(session_id, items, agent=AGENT)


def get_items(client, session_id, limit=None):
    return client.get_items(session_id, limit=limit)


def history_page(client, session_id, page, page_size):
    return client.history(session_id, page=page, page_size=page_size)


def item_count(client, session_id):
    return client.get_session(session_id)["itemCount"]


def agent_session(async_client, session_id):
    """The Agents SDK session over HTTP that an agent would use."""
    return HistoryHubSession(session_id, async_client, agent=AGENT)

"""A Python client for HistoryHub's REST API, for agents.

It imports nothing from Django (only the standard library), so an agent
process can vendor or install it alone::

    from historyhub.client import HistoryHubClient, HistoryHubSession

    hub = HistoryHubClient("http://127.0.0.1:8000", api_key="hh_…")
    session = HistoryHubSession("ses_support_42", hub, agent="supportAgent")
    await session.add_items([{"role": "user", "content": "Hello"}])
    items = await session.get_items(limit=20)

``HistoryHubSession`` has the OpenAI Agents SDK session methods (``get_items``,
``add_items``, ``pop_item``, ``clear_session``) as coroutines, plus the
optional compaction and transaction capabilities.
"""

from historyhub.client.http import HistoryHubClient, HistoryHubError
from historyhub.client.session import HistoryHubSession

__all__ = ["HistoryHubClient", "HistoryHubError", "HistoryHubSession"]

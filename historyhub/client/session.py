"""An agent SDK session backed by HistoryHub (agents-sdk-session.txt)."""

import asyncio
import uuid


class HistoryHubSession:
    """The OpenAI Agents SDK ``Session`` protocol over HTTP.

    Each method runs the blocking HTTP call in a worker thread, so an agent's
    event loop keeps running while HistoryHub answers.
    """

    def __init__(self, session_id, client, agent=None):
        self.session_id = session_id
        self.client = client
        self.agent = agent

    async def get_items(self, limit=None):
        """The newest ``limit`` items (all without a limit), in chronological order."""
        return await asyncio.to_thread(self.client.get_items, self.session_id, limit)

    async def add_items(self, items):
        """Append items; items whose id is already stored are skipped."""
        await asyncio.to_thread(self.client.add_items, self.session_id, items, self.agent)

    async def pop_item(self):
        return await asyncio.to_thread(self.client.pop_item, self.session_id)

    async def clear_session(self):
        await asyncio.to_thread(self.client.clear_items, self.session_id)

    async def replace_with_compaction(self, items):
        """The history becomes ``items`` (a compaction item first); earlier items are archived."""
        await asyncio.to_thread(self.client.compact, self.session_id, items)

    async def apply_history_transaction(self, transaction, operation_id=None):
        """Apply an ``append_items`` or ``replace_suffix`` transaction once; True when applied now."""
        operation_id = operation_id or str(uuid.uuid4())
        return await asyncio.to_thread(self.client.apply_transaction, self.session_id, operation_id, transaction)

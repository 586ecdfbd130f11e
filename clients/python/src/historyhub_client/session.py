"""The OpenAI Agents SDK's ``Session`` over HistoryHub (docs/python-client.md, "The Agents SDK session").

Imports nothing from the SDK: the SDK recognises a session by its shape
(``session_id``, ``session_settings`` and four coroutines).
"""

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from historyhub_client.errors import HistoryHubError
from historyhub_client.http import AsyncHistoryHubClient


class HistoryHubSession:
    """Conversation history kept in a HistoryHub session, for ``Runner.run(…, session=…)``.

    ``client`` is an ``AsyncHistoryHubClient``; ``agent`` names the agent of
    a session the first write creates; ``session_settings`` is the SDK's
    ``SessionSettings`` (its ``limit`` is the default of ``get_items``).
    """

    def __init__(
        self,
        session_id: str,
        client: AsyncHistoryHubClient,
        *,
        agent: str | None = None,
        session_settings: Any = None,
    ) -> None:
        self.session_id = session_id
        self.client = client
        self.agent = agent
        self.session_settings = session_settings

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The newest ``limit`` items in chronological order; every item without a limit."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        items: list[Any] = await self.client.get_items(self.session_id, limit)
        return items

    async def add_items(self, items: Iterable[Any]) -> None:
        """Append every item. An item HistoryHub did not store is an error, never a silent loss."""
        items = list(items)
        if not items:
            return
        answer = await self.client.add_items(self.session_id, items, self.agent)
        lost = [index for index, inserted in enumerate(answer["inserted"]) if not inserted]
        if lost:
            raise HistoryHubError(
                200,
                "items_not_stored",
                f"HistoryHub did not store {len(lost)} of {len(items)} items (at indexes {lost}).",
            )

    async def pop_item(self) -> Any:
        return await self.client.pop_item(self.session_id)

    async def clear_session(self) -> None:
        await self.client.clear_items(self.session_id)

    async def replace_with_compaction(self, items: Iterable[Any]) -> None:
        """The history becomes ``items`` (holding a "compaction" item, first or last); earlier items are archived."""
        await self.client.compact(self.session_id, items)

    async def _atomic_replace_items(self, items: Iterable[Any]) -> bool:
        """How the SDK's ``OpenAIResponsesCompactionSession`` replaces history: through /compaction.

        The SDK looks for this method on the session's type. Without it, it
        would clear the session and add the items back, which on HistoryHub
        deletes waiting client actions and drops the timeline instead of
        archiving it. A failure raises; it never answers False, which would
        send the SDK to that fallback.
        """
        await self.replace_with_compaction(items)
        return True

    async def apply_history_transaction(self, transaction: Mapping[str, Any], operation_id: str | None = None) -> bool:
        """Apply an ``append_items`` or ``replace_suffix`` transaction once; True when applied now."""
        operation_id = operation_id or str(uuid.uuid4())
        applied: bool = await self.client.apply_transaction(self.session_id, operation_id, transaction)
        return applied

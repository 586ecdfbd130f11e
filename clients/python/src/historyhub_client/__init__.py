"""A Python client for HistoryHub's REST API, for agents: the package historyhub-client (its README.md;
HistoryHub's docs/python-client.md has every method).

It imports nothing from Django::

    from historyhub_client import AsyncHistoryHubClient, HistoryHubSession

    hub = AsyncHistoryHubClient("http://127.0.0.1:8000", api_key="hh_…")
    session = HistoryHubSession("support-42", hub, agent="support")
    result = await Runner.run(agent, "Where is my refund?", session=session)

``HistoryHubClient`` is the same client for scripts, with blocking calls.
``historyhub_client.approvals`` (which needs ``openai-agents``: the extra
``agents``) makes HistoryHub the approver of an Agents SDK agent's tools.
``arguments_digest`` is the server's digest of a call's arguments, with which
``claim_execution`` claims the one run of an approved call.
"""

from historyhub_client.digests import DigestError, arguments_digest, canonical_json
from historyhub_client.errors import (
    AlreadyExecutedError,
    ArgumentsMismatchError,
    ExecutionRefusedError,
    HistoryHubError,
    NotApprovedError,
)
from historyhub_client.http import AsyncHistoryHubClient, HistoryHubClient
from historyhub_client.session import HistoryHubSession
from historyhub_client.transport import RetryPolicy

__all__ = [
    "AlreadyExecutedError",
    "ArgumentsMismatchError",
    "AsyncHistoryHubClient",
    "DigestError",
    "ExecutionRefusedError",
    "HistoryHubClient",
    "HistoryHubError",
    "HistoryHubSession",
    "NotApprovedError",
    "RetryPolicy",
    "arguments_digest",
    "canonical_json",
]

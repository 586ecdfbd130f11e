"""A small conversation for the dashboard view tests: a support session waiting on one client action."""

import pytest

from historyhub.history import client_actions, item_log, sessions


@pytest.fixture
def refund(db):
    """A support session waiting on one client action."""
    sessions.ensure(
        agent="supportAgent", session_id="refund-1", name="Refund for a broken machine", metadata={"customer": "Ingrid"}
    )
    item_log.append("refund-1", [{"type": "message", "role": "user", "content": "My machine arrived broken."}])
    action, _ = client_actions.open_action(
        "refund-1",
        call_id="call_refund",
        name="request_human_approval",
        arguments={"amount": 750, "currency": "USD"},
        description="Refund above the limit",
    )
    return action

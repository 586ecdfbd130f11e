"""What the dashboard view tests share: CSRF-carrying posts, htmx headers and small conversations."""

import pytest
from django.urls import reverse

from historyhub.history import client_actions, item_log, sessions
from historyhub.history.models import TimelineEntry

HTMX = {"HX-Request": "true"}


def csrf_token(client):
    """The CSRF cookie a page sets, as a browser would send it back."""
    client.get(reverse("dashboard:sessions"))
    return client.cookies["csrftoken"].value


def post(client, url, data, htmx=False):
    headers = {"X-CSRFToken": csrf_token(client), **(HTMX if htmx else {})}
    return client.post(url, data, headers=headers)


def text_of(response):
    return response.content.decode()


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


def decision_url(session_id, call_id):
    """The decision URL of the card that shows a client action (its own, or the card of the call it gates)."""
    action = client_actions.get(session_id, call_id)
    entry = TimelineEntry.objects.get(session_id=session_id, key=action.entry_key)
    return reverse("dashboard:decide_entry", args=[session_id, entry.pk])

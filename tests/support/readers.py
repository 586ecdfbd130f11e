"""Reading what the server holds: answers over the API, and the domain's own view of a session."""

import json

from django.urls import reverse

from historyhub.approvals.schemas import ClientActionOut
from historyhub.faults import JSON_CONTENT_TYPE
from historyhub.history import client_actions, history_pages, item_log, sessions
from historyhub.history.models import TimelineEntry
from historyhub.history.schemas import HistoryPage, SessionSnapshot

ERROR_REF = {"$ref": "#/components/schemas/Error"}


def items_via_api(api, session_id, **params):
    """The session's items as GET …/items answers them (a streamed answer), parsed."""
    response = api.get(f"sessions/{session_id}/items", **params)
    assert response.status_code == 200, response
    assert response["Content-Type"] == "application/json"
    return json.loads(b"".join(response.streaming_content))["items"]


def envelope(content_type, body):
    """The error of an answer that is exactly the error envelope, as ``faults.error_response`` builds it: its
    content type, ``{"error": {"code", "message"}}`` and nothing else, both strings."""
    assert content_type == JSON_CONTENT_TYPE, (content_type, body[:300])
    answer = json.loads(body)
    assert list(answer) == ["error"] and sorted(answer["error"]) == ["code", "message"], answer
    assert all(isinstance(value, str) and value for value in answer["error"].values()), answer
    return answer["error"]


def assert_error(response, status, code, message=None):
    """The answer is the API's error envelope with this status and code; returns its message."""
    assert response.status_code == status, response.content
    error = envelope(response["Content-Type"], response.content)
    assert error["code"] == code
    if message is not None:
        assert error["message"] == message
    return error["message"]


def operations(spec):
    """The OpenAPI document's operations by (method, path)."""
    return {
        (method, path): operation for path, methods in spec["paths"].items() for method, operation in methods.items()
    }


def items_in_log(session_id, limit=None):
    """The logical history as the item log holds it (what the SDK protocol returns), parsed."""
    return [json.loads(text) for text in item_log.iter_item_texts(session_id, limit)]


def timeline(session_id):
    """Every history item, chronological (sessions in these tests stay under 100)."""
    return history_pages.history(session_id, page=1, page_size=100).items


def timeline_item(session_id, item_id):
    matches = [item for item in timeline(session_id) if item["id"] == item_id]
    assert len(matches) == 1, f"{item_id} appears {len(matches)} times in the timeline"
    return matches[0]


def timeline_ids(session_id):
    return [item["id"] for item in timeline(session_id)]


def snapshot(session_id):
    """The session's snapshot as the API shows it."""
    return SessionSnapshot.from_orm(sessions.snapshot(sessions.get(session_id))).model_dump()


def wire_history(session_id, **pagination):
    """A history page as the API shows it."""
    return HistoryPage.from_orm(history_pages.history(session_id, **pagination)).model_dump()


def shown(action):
    """A client action as the API shows it."""
    return ClientActionOut.from_orm(action).model_dump()


def decision_url(session_id, call_id):
    """The decision URL of the card that shows a client action (its own, or the card of the call it gates)."""
    action = client_actions.get(session_id, call_id)
    entry = TimelineEntry.objects.get(session_id=session_id, key=action.entry_key)
    return reverse("dashboard:decide_entry", args=["default", session_id, entry.pk])

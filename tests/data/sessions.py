"""Sessions that own a row in every table a session can own: what the data tests delete, erase and export."""

from historyhub.apikeys.models import ApiKey
from historyhub.history.models import ClientAction, Item, Operation, Session, TimelineEntry
from historyhub.idempotency.models import IdempotencyRecord
from historyhub.lib import session_keys
from historyhub.runs.models import Run
from tests.support.actors import ApiClient, KeyedApiClient
from tests.support.items import user
from tests.support.runs import STATE


def full_session(api, session_id, metadata=None, idempotency_key=None):
    """A session with items, a timeline, a waiting client action, an operation, a parked run and an
    Idempotency-Key record, made over the API with ``api``'s key."""
    body = {"sessionId": session_id, "agent": "support", "metadata": metadata or {}}
    assert api.post("sessions", body).status_code == 201
    keyed = KeyedApiClient(api.key, idempotency_key or f"append-{session_id}")
    assert keyed.post(f"sessions/{session_id}/items", {"items": [user(f"hello from {session_id}")]}).status_code == 200
    transaction = {"operationId": "op-1", "transaction": {"type": "append_items", "items": [user("second")]}}
    assert api.post(f"sessions/{session_id}/transactions", transaction).status_code == 200
    action = {"callId": "call-1", "name": "refund", "arguments": {"amount": 5}}
    assert api.post(f"sessions/{session_id}/client-actions", action).status_code == 201
    run = {"agent": "support", "state": STATE, "callIds": ["call-1"]}
    assert api.put(f"sessions/{session_id}/runs/run-1", run).status_code in (200, 201)


def rows_of(key):
    """How many rows of each kind the session with this key owns."""
    return {
        "session": Session.objects.filter(pk=key).count(),
        "items": Item.objects.filter(session_id=key).count(),
        "timeline": TimelineEntry.objects.filter(session_id=key).count(),
        "actions": ClientAction.objects.filter(session_id=key).count(),
        "operations": Operation.objects.filter(session_id=key).count(),
        "runs": Run.objects.filter(session_id=key).count(),
        "idempotency": IdempotencyRecord.objects.filter(
            api_key__project_id=session_keys.project_of(key),
            target__startswith=f"/api/v1/sessions/{session_keys.session_id_of(key)}/",
        ).count(),
    }


def remaining():
    """The keys of every session left, in order."""
    return sorted(Session.objects.values_list("pk", flat=True))


def write_client(project="default", name="writer"):
    return ApiClient(ApiKey.issue(name, "write", project=project)[1])

from historyhub.history.models import Operation
from tests.support.items import user
from tests.support.readers import assert_error, items_via_api


def test_it_removes_every_item_and_keeps_the_session(api):
    api.post("sessions", {"sessionId": "s1", "agent": "support", "name": "Kept", "metadata": {"k": "v"}})
    api.post("sessions/s1/items", {"items": [user("hi")]})
    api.post("sessions/s1/client-actions", {"callId": "c1", "name": "n", "arguments": {}})
    api.post("sessions/s1/transactions", {"operationId": "op-1", "transaction": {"type": "append_items", "items": []}})

    response = api.delete("sessions/s1/items")

    assert response.status_code == 204
    assert items_via_api(api, "s1") == []
    snapshot = api.get("sessions/s1/history").json()
    assert (snapshot["agent"], snapshot["name"], snapshot["metadata"]) == ("support", "Kept", {"k": "v"})
    assert (snapshot["itemCount"], snapshot["total"], snapshot["items"]) == (0, 0, [])
    assert snapshot["runStatus"] is None
    assert snapshot["pendingClientActions"] == []
    assert_error(api.get("sessions/s1/client-actions/c1"), 404, "not_found")
    assert not Operation.objects.filter(session_id="s1").exists()


def test_an_unknown_session_is_a_204_that_changes_nothing(api):
    response = api.delete("sessions/nobody/items")

    assert response.status_code == 204
    assert_error(api.get("sessions/nobody"), 404, "session_not_found")

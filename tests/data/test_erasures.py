import pytest

from historyhub.audit.log import value_hash
from historyhub.audit.models import AuditEntry
from tests.data.sessions import full_session, remaining, rows_of
from tests.support.readers import assert_error


def test_it_deletes_every_session_with_that_value_under_that_key_and_nothing_else(api, acme):
    for number in range(5):
        full_session(api, f"ana-{number}", {"customerId": "ana", "n": number})
    full_session(api, "bob", {"customerId": "bob"})
    full_session(api, "ana-elsewhere", {"owner": "ana"})
    full_session(api, "anabel", {"customerId": "anabel"})
    full_session(acme, "ana-0", {"customerId": "ana"})

    response = api.post("erasures", {"metadataKey": "customerId", "metadataValue": "ana"})

    assert response.status_code == 200
    assert response.json() == {"sessionsDeleted": 5}
    assert remaining() == ["acme/ana-0", "ana-elsewhere", "anabel", "bob"]
    assert all(count == 0 for count in rows_of("ana-3").values())
    assert rows_of("acme/ana-0")["items"] == 2
    entry = AuditEntry.objects.get(action="erasure")
    assert (entry.project_id, entry.actor, entry.target) == ("default", "api key: tests (write)", "customerId")
    assert entry.details == {"metadataKey": "customerId", "valueHash": value_hash("ana"), "sessionsDeleted": 5}
    assert "ana" not in entry.details_json.replace('"customerId"', "")


def test_child_sessions_go_with_an_erased_parent(api):
    api.post("sessions", {"sessionId": "parent", "agent": "a", "metadata": {"customerId": "ana"}})
    api.post("sessions", {"sessionId": "child", "agent": "a", "parentSessionId": "parent", "parentCallId": "c"})

    response = api.post("erasures", {"metadataKey": "customerId", "metadataValue": "ana"})

    assert response.json() == {"sessionsDeleted": 2}
    assert remaining() == []


@pytest.mark.parametrize(
    ("stored", "asked", "deleted"),
    [(7, 7.0, 1), (7, "7", 0), (True, 1, 0), (None, None, 1), (False, False, 1)],
)
def test_values_match_as_json_values(api, stored, asked, deleted):
    api.post("sessions", {"sessionId": "s", "agent": "a", "metadata": {"k": stored}})

    response = api.post("erasures", {"metadataKey": "k", "metadataValue": asked})

    assert response.json() == {"sessionsDeleted": deleted}


def test_no_match_deletes_nothing(api):
    api.post("sessions", {"sessionId": "s", "agent": "a", "metadata": {"k": "v"}})

    assert api.post("erasures", {"metadataKey": "k", "metadataValue": "w"}).json() == {"sessionsDeleted": 0}
    assert remaining() == ["s"]


@pytest.mark.parametrize(
    "body",
    [
        {"metadataValue": "v"},
        {"metadataKey": "", "metadataValue": "v"},
        {"metadataKey": "k" * 201, "metadataValue": "v"},
        {"metadataKey": "k", "metadataValue": {"nested": "v"}},
        {"metadataKey": "k", "metadataValue": ["v"]},
        {"metadataKey": "k"},
    ],
)
def test_bad_input_is_a_400_and_changes_nothing(api, body):
    api.post("sessions", {"sessionId": "s", "agent": "a", "metadata": {"k": "v"}})

    response = api.post("erasures", body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert remaining() == ["s"]


def test_a_read_key_may_not_erase(api, read_api):
    api.post("sessions", {"sessionId": "s", "agent": "a", "metadata": {"k": "v"}})

    assert_error(read_api.post("erasures", {"metadataKey": "k", "metadataValue": "v"}), 403, "forbidden")
    assert remaining() == ["s"]

import pytest

from tests.support.readers import assert_error

ACTION = {"callId": "c1", "name": "send_mail", "arguments": {"to": "ops@example.com"}, "description": "Mail ops"}
CLIENT_ACTION_FIELDS = {
    "sessionId",
    "callId",
    "name",
    "arguments",
    "argumentsDigest",
    "approvedArgumentsDigest",
    "executedAt",
    "description",
    "status",
    "createdAt",
    "expiresAt",
    "resolvedAt",
    "resolvedBy",
    "decision",
    "comment",
    "approvedArguments",
    "response",
    "output",
    "isError",
    "allowedResponses",
    "responseSchema",
    "policy",
    "votes",
    "approvalsNeeded",
    "escalatedAt",
    "reported",
    "imported",
}


def test_it_opens_a_waiting_action(api, session_id):
    response = api.post(f"sessions/{session_id}/client-actions", ACTION)

    assert response.status_code == 201
    action = response.json()
    assert set(action) == CLIENT_ACTION_FIELDS
    assert action["sessionId"] == session_id
    assert (action["callId"], action["name"], action["arguments"]) == ("c1", "send_mail", ACTION["arguments"])
    assert (action["description"], action["status"]) == ("Mail ops", "waiting")
    assert action["createdAt"].endswith("Z")
    assert action["resolvedAt"] is action["resolvedBy"] is action["decision"] is action["output"] is None


def test_opening_an_action_sets_the_session_waiting(api, session_id):
    api.post(f"sessions/{session_id}/client-actions", ACTION)

    history = api.get(f"sessions/{session_id}/history").json()

    assert history["runStatus"] == "waiting_for_client_action"
    assert history["pendingClientActions"] == [{"callId": "c1", "name": "send_mail", "arguments": ACTION["arguments"]}]
    [item] = history["items"]
    assert (item["id"], item["type"], item["status"]) == ("client-action:c1", "client_action", "waiting")
    assert item["summary"] == "send mail is waiting for the client."


def test_the_same_call_id_and_content_returns_the_existing_action(api, session_id):
    first = api.post(f"sessions/{session_id}/client-actions", ACTION).json()

    again = api.post(f"sessions/{session_id}/client-actions", ACTION)

    assert again.status_code == 200
    assert again.json() == first


def test_the_same_call_id_with_other_content_is_a_conflict(api, session_id):
    api.post(f"sessions/{session_id}/client-actions", ACTION)

    response = api.post(f"sessions/{session_id}/client-actions", {**ACTION, "arguments": {"to": "someone@else"}})

    assert_error(response, 409, "action_result_conflict")


@pytest.mark.parametrize(
    "sent, kept",
    [
        ("2099-01-01T00:00:00Z", "2099-01-01T00:00:00Z"),
        ("2099-01-01T02:00:00.250+02:00", "2099-01-01T00:00:00.250Z"),
        ("9999-02-15T06:44:00+02:00", "9999-02-15T04:44:00Z"),
    ],
)
def test_it_keeps_an_expiry_in_utc(api, session_id, sent, kept):
    response = api.post(f"sessions/{session_id}/client-actions", {**ACTION, "expiresAt": sent})

    assert response.json()["expiresAt"] == kept


@pytest.mark.parametrize(
    "change, field",
    [
        ({"arguments": "text"}, "arguments"),
        ({"callId": ""}, "callId"),
        ({"name": None}, "name"),
        ({"expiresAt": "tomorrow"}, "expiresAt"),
        ({"expiresAt": "2099-01-01T00:00:00"}, "expiresAt"),
        ({"expiresAt": "0001-01-01T00:00:00+02:00"}, "expiresAt"),
        ({"expiresAt": "2020-01-01T00:00:00Z"}, "expiresAt"),
    ],
)
def test_it_rejects_bad_input(api, session_id, change, field):
    response = api.post(f"sessions/{session_id}/client-actions", {**ACTION, **change})

    assert field in assert_error(response, 400, "invalid_input")
    assert api.get(f"sessions/{session_id}").json()["pendingClientActions"] == []


@pytest.mark.parametrize(
    "name",
    ["send\nmail", "send\r\nBcc: all@example.com", "send\tmail", "\x1b[31mred", "send\x7f", "send\x85", "send\u2028"],
)
def test_a_name_with_a_control_character_is_refused(api, session_id, name):
    response = api.post(f"sessions/{session_id}/client-actions", {**ACTION, "name": name})

    message = assert_error(response, 400, "invalid_input")
    assert message == "name must not contain control characters (a newline, a tab …)."
    assert api.get(f"sessions/{session_id}").json()["pendingClientActions"] == []
    assert api.get("client-actions").json()["total"] == 0


@pytest.mark.parametrize("name", ["send mail", "überweisung_prüfen", "pay 💸", "\u202eevil", "n" * 200])
def test_a_name_of_printable_characters_is_kept_as_sent(api, session_id, name):
    response = api.post(f"sessions/{session_id}/client-actions", {**ACTION, "name": name})

    assert response.status_code == 201, response.content
    assert response.json()["name"] == name


def test_it_answers_404_for_an_unknown_session(api):
    assert_error(api.post("sessions/nobody/client-actions", ACTION), 404, "session_not_found")

"""The limits of docs/api.md ("Limits") that the domain enforces: a session name's length and the size of what
a person reads on a client action. Beyond them: a clear error, and nothing changes."""

import pytest
from django.test import override_settings

from tests.support.readers import assert_error

LIMIT = 1024  # HISTORYHUB_MAX_ACTION_FIELD_BYTES, made small for these tests
BIG = "x" * (LIMIT + 1)


def test_a_session_name_over_500_characters_is_refused_not_cut(api):
    response = api.post("sessions", {"sessionId": "long", "agent": "a", "name": "n" * 100_000})

    assert assert_error(response, 400, "invalid_input").startswith("name: ")
    assert_error(api.get("sessions/long"), 404, "session_not_found")


def test_a_session_name_of_500_characters_is_kept_whole(api):
    response = api.post("sessions", {"sessionId": "long", "agent": "a", "name": "n" * 500})

    assert response.status_code == 201
    assert response.json()["name"] == "n" * 500


def test_renaming_a_session_beyond_500_characters_is_refused(api, session_id):
    before = api.get(f"sessions/{session_id}").json()

    assert assert_error(api.patch(f"sessions/{session_id}", {"name": "n" * 501}), 400, "invalid_input").startswith(
        "name: "
    )
    assert api.get(f"sessions/{session_id}").json() == before


@override_settings(HISTORYHUB_MAX_ACTION_FIELD_BYTES=LIMIT)
@pytest.mark.parametrize(
    "body, field",
    [
        ({"arguments": {"note": BIG}}, "arguments"),
        ({"arguments": {}, "description": BIG}, "description"),
    ],
)
def test_an_action_whose_arguments_or_description_are_too_big_is_refused(api, session_id, body, field):
    response = api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "send", **body})

    assert assert_error(response, 413, "payload_too_large").startswith(f"{field} is ")
    assert api.get(f"sessions/{session_id}").json()["pendingClientActions"] == []


@override_settings(HISTORYHUB_MAX_ACTION_FIELD_BYTES=LIMIT)
@pytest.mark.parametrize(
    "body, field",
    [
        ({"decision": "reject", "comment": BIG}, "comment"),
        ({"decision": "approve", "arguments": {"note": BIG}}, "arguments"),
    ],
)
def test_a_decision_whose_comment_or_arguments_are_too_big_is_refused(api, decide_api, session_id, body, field):
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "send", "arguments": {}})

    response = decide_api.post(f"sessions/{session_id}/client-actions/c1/decision", body)

    assert assert_error(response, 413, "payload_too_large").startswith(f"{field} is ")
    assert api.get(f"sessions/{session_id}/client-actions/c1").json()["status"] == "waiting"


@override_settings(HISTORYHUB_MAX_ACTION_FIELD_BYTES=LIMIT)
def test_arguments_just_within_the_limit_are_kept(api, session_id):
    arguments = {"note": "x" * (LIMIT - len('{"note":""}'))}

    response = api.post(
        f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "send", "arguments": arguments}
    )

    assert response.status_code == 201
    assert response.json()["arguments"] == arguments

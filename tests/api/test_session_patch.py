import pytest

from tests.support.readers import assert_error


def test_it_changes_only_the_fields_sent(api):
    api.post("sessions", {"sessionId": "s1", "agent": "a", "name": "Old", "metadata": {"k": "v"}})

    response = api.patch("sessions/s1", {"status": "paused"})

    assert response.status_code == 200
    snapshot = response.json()
    assert (snapshot["status"], snapshot["name"], snapshot["metadata"]) == ("paused", "Old", {"k": "v"})


def test_it_changes_name_metadata_status_and_run_status(api, session_id):
    response = api.patch(
        f"sessions/{session_id}",
        {"name": "New", "metadata": {"tier": 2}, "status": "completed", "runStatus": "completed"},
    )

    snapshot = response.json()
    assert (snapshot["name"], snapshot["metadata"], snapshot["status"], snapshot["runStatus"]) == (
        "New",
        {"tier": 2},
        "completed",
        "completed",
    )
    assert api.get(f"sessions/{session_id}").json() == snapshot


def test_run_status_may_be_set_back_to_null(api, session_id):
    api.patch(f"sessions/{session_id}", {"runStatus": "running"})

    assert api.patch(f"sessions/{session_id}", {"runStatus": None}).json()["runStatus"] is None


@pytest.mark.parametrize(
    "body, field",
    [
        ({"status": "archived"}, "status"),
        ({"runStatus": "sleeping"}, "runStatus"),
        ({"name": 5}, "name"),
        ({"name": None}, "name"),
    ],
)
def test_it_rejects_a_bad_value_and_changes_nothing(api, session_id, body, field):
    before = api.get(f"sessions/{session_id}").json()

    message = assert_error(api.patch(f"sessions/{session_id}", body), 400, "invalid_input")

    assert message.startswith(f"{field}: ")
    assert api.get(f"sessions/{session_id}").json() == before


def test_it_rejects_nested_metadata(api, session_id):
    response = api.patch(f"sessions/{session_id}", {"metadata": {"k": [1]}})

    assert_error(
        response,
        400,
        "invalid_input",
        "metadata must be an object whose values are strings, numbers, booleans or null.",
    )


def test_it_answers_404_for_an_unknown_session(api):
    assert_error(api.patch("sessions/nobody", {"name": "x"}), 404, "session_not_found")

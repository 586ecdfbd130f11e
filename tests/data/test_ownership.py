from django.db import transaction

from historyhub.history import ownership
from historyhub.history.models import Session
from historyhub.idempotency.models import IdempotencyRecord
from historyhub.projects.models import Project
from tests.data.sessions import full_session, rows_of, write_client

EVERYTHING_OF_ONE = {
    "session": 1,
    "items": 2,
    "timeline": 3,
    "actions": 1,
    "operations": 1,
    "runs": 1,
    "idempotency": 1,
}
NOTHING = dict.fromkeys(EVERYTHING_OF_ONE, 0)


def test_a_full_session_owns_a_row_in_every_table(api):
    full_session(api, "ses-full")

    assert rows_of("ses-full") == EVERYTHING_OF_ONE


def test_deleting_sessions_removes_everything_they_own_and_nothing_else(api):
    full_session(api, "ses-gone")
    full_session(api, "ses-kept")

    with transaction.atomic():
        deleted = ownership.delete_sessions(["ses-gone"])

    assert deleted == ["ses-gone"]
    assert rows_of("ses-gone") == NOTHING
    assert rows_of("ses-kept") == EVERYTHING_OF_ONE


def test_an_id_is_matched_as_written_never_as_a_pattern_or_a_prefix(api):
    gone, kept = ["a.b", "old-1", "u@x:1"], ["aXb", "old-10", "u@x:10"]
    for session_id in gone + kept:
        full_session(api, session_id, idempotency_key=f"key-{session_id}")

    with transaction.atomic():
        ownership.delete_sessions(gone)

    remaining = IdempotencyRecord.objects.order_by("key").values_list("key", flat=True)
    assert list(remaining) == sorted(f"key-{session_id}" for session_id in kept)


def test_deleting_a_session_over_the_api_removes_everything_it_owns(api):
    full_session(api, "ses-api")

    assert api.delete("sessions/ses-api").status_code == 204

    assert rows_of("ses-api") == NOTHING


def test_descendants_go_with_their_parent_and_another_projects_session_of_the_same_id_stays(api, db):
    Project.objects.create(id="acme", name="Acme")
    acme = write_client("acme")
    for client in (api, acme):
        client.post("sessions", {"sessionId": "parent", "agent": "a"})
        client.post("sessions", {"sessionId": "child", "agent": "a", "parentSessionId": "parent", "parentCallId": "c"})

    with transaction.atomic():
        deleted = ownership.delete_sessions(["parent"])

    assert sorted(deleted) == ["child", "parent"]
    assert sorted(Session.objects.values_list("pk", flat=True)) == ["acme/child", "acme/parent"]

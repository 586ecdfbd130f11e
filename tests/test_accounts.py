"""/accounts/ serves logging in and out, changing one's own password, the profile and the links people are mailed
(docs/people.md), and nothing else: no password reset by mail."""

import pytest
from django.test import Client

from tests.support.actors import post


@pytest.mark.parametrize("path", ["password_reset/", "password_reset/done/", "reset/MQ/set-password/", "reset/done/"])
def test_there_is_no_self_service_password_reset(db, path):
    assert Client().get(f"/accounts/{path}").status_code == 404
    assert Client().post(f"/accounts/{path}", {"email": "ada@example.com"}).status_code == 404


def test_a_person_who_is_logged_in_may_change_their_password(viewer, viewer_client):
    response = post(
        viewer_client,
        "/accounts/password_change/",
        {
            "old_password": "viewer-password-1",
            "new_password1": "a-new-long-pass-7",
            "new_password2": "a-new-long-pass-7",
        },
    )

    assert response.status_code == 302
    viewer.refresh_from_db()
    assert viewer.check_password("a-new-long-pass-7")


def test_changing_a_password_needs_a_login(db):
    response = Client().get("/accounts/password_change/")

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")

"""Deactivating a person in /admin/ signs them out everywhere: their sessions are deleted, others' are kept
(docs/people.md). That their votes stop counting is tests/approvals/test_deciders_are_identities.py's."""

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from tests.support.actors import make_member
from tests.support.html import parse

pytestmark = pytest.mark.django_db


def logged_in_with_password(username):
    client = Client()
    assert (
        client.post(reverse("login"), {"username": username, "password": f"{username}-password-1"}).status_code == 302
    )
    return client


def test_deactivating_a_person_in_the_admin_ends_their_sessions_only():
    make_member("bob", "approver")
    make_member("ada", "approver")
    bob_here, bob_there, ada = (logged_in_with_password(name) for name in ("bob", "bob", "ada"))
    sessions_page = reverse("dashboard:sessions", args=["default"])
    assert bob_here.get(sessions_page).status_code == 200
    assert Session.objects.count() == 3

    operator = Client()
    operator.force_login(User.objects.create_superuser("root", password="root-password-1"))
    change = reverse("admin:auth_user_change", args=[User.objects.get(username="bob").pk])
    form = parse(operator.get(change)).one("form#user_form").submitted()
    form.pop("is_active", None)
    assert operator.post(change, form).status_code == 302

    assert Session.objects.count() == 2  # ada's and the operator's
    for bob in (bob_here, bob_there):
        answer = bob.get(sessions_page)
        assert answer.status_code == 302 and answer["Location"].startswith(reverse("login"))
    assert ada.get(sessions_page).status_code == 200


def test_saving_an_active_person_or_making_one_active_keeps_sessions():
    bob = make_member("bob", "approver")
    client = logged_in_with_password("bob")
    bob.first_name = "Bob"
    bob.save()
    assert Session.objects.count() == 1
    assert client.get(reverse("dashboard:sessions", args=["default"])).status_code == 200

"""An invitation accepted through single sign-on (docs/people.md, docs/sso.md): the invitation page offers the
IdP, and with PASSWORD_LOGIN=False it is the only way to accept."""

import pytest
from django.test import Client

from historyhub.projects import invitations
from historyhub.projects.models import Membership, Project
from tests.sso.conftest import running_issuer, sign_in, signed_in_as


@pytest.fixture
def sso_only(settings):
    with running_issuer(settings, password_login=False) as running:
        yield running


@pytest.fixture
def link(db):
    invitation = invitations.invite(Project.objects.get(pk="default"), "ada@example.com", "approver", actor="tests")
    return f"/accounts/invitations/{invitation.mail_token}/"


def test_the_page_offers_the_idp_and_no_password_forms_when_sso_is_the_only_way_in(sso_only, link):
    page = Client().get(link).content.decode()

    assert "Sign in with Loopback IdP, then join" in page
    assert 'name="new-password1"' not in page and 'name="login-password"' not in page


def test_a_password_account_posted_anyway_is_refused_and_nothing_is_accepted(sso_only, link):
    client = Client()

    response = client.post(
        link,
        {"action": "new", "new-username": "ada", "new-password1": "a-long-pass-1!", "new-password2": "a-long-pass-1!"},
    )

    assert response.status_code == 422
    assert signed_in_as(client) is None
    assert not Membership.objects.filter(project_id="default", user__username="ada").exists()


def test_signing_in_at_the_idp_comes_back_to_the_invitation_and_joining_keeps_the_sso_session(sso_only, link):
    client = Client()
    back = sign_in(client, sso_only, next_url=link)
    assert back.status_code == 302 and back["Location"] == link

    joined = client.post(link, {"action": "join"})

    assert joined.status_code == 302
    assert Membership.objects.get(project_id="default", user__username="ada").role == "approver"
    assert signed_in_as(client) == "ada"

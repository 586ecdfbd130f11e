"""Invitations (docs/people.md): made over the API and on the settings page, mailed by the delivery worker through
a real SMTP server on localhost, accepted once as a new or an existing account, refused when used, revoked or
expired with one answer, audited."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from historyhub.audit.models import AuditEntry
from historyhub.dashboard import invitation_page
from historyhub.projects import invitations
from historyhub.projects.models import Invitation, Membership
from tests.notifications.conftest import deliver_due
from tests.projects.conftest import LINK
from tests.support.actors import logged_in, make_member, post
from tests.support.html import parse
from tests.support.readers import assert_error
from tests.support.smtp import text_of

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-and-unusual-passphrase-7"


@pytest.fixture(autouse=True)
def no_counted_failures():
    cache.clear()
    yield
    cache.clear()


def invited(admin_api, inbox, email="alice@example.com", role="approver"):
    """Invite ``email`` over the API and let the worker mail it; the link's token, read from the mail."""
    made = admin_api.post("invitations", {"email": email, "role": role})
    assert made.status_code == 201, made.content
    deliver_due()
    (recipients, message), *_ = [mail for mail in inbox.messages if mail[0] == [email]]
    return LINK.search(text_of(message)).group(1)


def accept_url(token):
    return reverse("accept_invitation", args=[token])


def test_an_admin_key_invites_lists_and_revokes_and_the_link_is_in_no_answer(admin_api):
    made = admin_api.post("invitations", {"email": "Alice@Example.COM", "role": "approver"})
    assert made.status_code == 201
    body = made.json()
    assert set(body) == {"invitationId", "email", "role", "expiresAt"}
    assert body["email"] == "Alice@example.com" and body["role"] == "approver"
    invitation = Invitation.objects.get(pk=body["invitationId"])
    assert invitation.expires_at - invitation.created_at == timedelta(days=7)
    listed = admin_api.get("invitations")
    assert listed.status_code == 200 and listed.json() == {"items": [body]}
    # Nothing a key reads carries the token: only its hash is kept, and the link waits encrypted for the mail.
    assert invitation.mail_token not in made.content.decode() + listed.content.decode()
    assert invitation.token_hash == invitations.hashed(invitation.mail_token)
    assert admin_api.delete(f"invitations/{body['invitationId']}").status_code == 204
    assert admin_api.get("invitations").json() == {"items": []}
    assert_error(admin_api.delete(f"invitations/{body['invitationId']}"), 404, "not_found")
    actions = list(AuditEntry.objects.order_by("id").values_list("action", "target"))
    assert ("invitation.sent", body["invitationId"]) in actions
    assert ("invitation.revoked", body["invitationId"]) in actions


def test_other_keys_are_forbidden(api, decide_api, admin_api):
    invitation_id = admin_api.post("invitations", {"email": "a@example.com", "role": "viewer"}).json()["invitationId"]
    for client in (api, decide_api):
        assert_error(client.post("invitations", {"email": "b@example.com", "role": "viewer"}), 403, "forbidden")
        assert_error(client.get("invitations"), 403, "forbidden")
        assert_error(client.delete(f"invitations/{invitation_id}"), 403, "forbidden")
    assert Invitation.objects.count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {"email": "not an address", "role": "viewer"},
        {"email": "a@example.com", "role": "owner"},
        {"email": "", "role": "viewer"},
        {"role": "viewer"},
        {"email": "a@example.com"},
        {"email": 42, "role": "viewer"},
    ],
)
def test_a_bad_email_or_role_is_refused_and_nothing_is_made(admin_api, body):
    assert_error(admin_api.post("invitations", body), 400, "invalid_input")
    assert not Invitation.objects.exists() and not AuditEntry.objects.filter(action="invitation.sent").exists()


def test_the_answer_is_the_same_whether_the_address_has_an_account_or_not(admin_api):
    someone = make_member("someone", "viewer")
    someone.email = "someone@example.com"
    someone.save()
    answers = []
    for email in ("someone@example.com", "nobody@example.com"):
        answer = admin_api.post("invitations", {"email": email, "role": "viewer"})
        body = answer.json()
        answers.append((answer.status_code, sorted(body), body["email"].split("@")[1], dict(answer.headers).keys()))
    assert answers[0] == answers[1]


def test_the_worker_mails_the_link_once_and_keeps_it_no_longer(admin_api, inbox):
    token = invited(admin_api, inbox)
    invitation = Invitation.objects.get()
    assert invitation.token_hash == invitations.hashed(token)
    assert invitation.mailed_at is not None and invitation.next_mail_at is None and invitation.mail_token == ""
    (recipients, message) = inbox.messages[0]
    assert "You are invited to Default" in message["Subject"]
    assert accept_url(token) in message.get_body(preferencelist=("html",)).get_content()
    deliver_due()
    assert len(inbox.messages) == 1


def test_a_mail_server_that_is_down_loses_nothing(admin_api, settings, inbox):
    settings.EMAIL_PORT = 1  # nothing listens there
    admin_api.post("invitations", {"email": "alice@example.com", "role": "viewer"})
    deliver_due()
    invitation = Invitation.objects.get()
    assert invitation.mail_attempts == 1 and invitation.next_mail_at > timezone.now() and invitation.mail_token
    Invitation.objects.update(next_mail_at=timezone.now())
    settings.EMAIL_PORT = inbox.port
    deliver_due()
    assert [recipients for recipients, _ in inbox.messages] == [["alice@example.com"]]


def test_a_new_person_makes_an_account_joins_and_is_logged_in(admin_api, inbox):
    token = invited(admin_api, inbox)
    browser = Client()
    page = browser.get(accept_url(token))
    assert page.status_code == 200 and b"Join Default" in page.content
    weak = browser.post(
        accept_url(token),
        {"action": "new", "new-username": "alice", "new-password1": "alice", "new-password2": "alice"},
    )
    assert weak.status_code == 422 and not User.objects.filter(username="alice").exists()
    joined = browser.post(
        accept_url(token),
        {"action": "new", "new-username": "alice", "new-password1": PASSWORD, "new-password2": PASSWORD},
    )
    assert joined.status_code == 302 and joined["Location"] == reverse("dashboard:sessions", args=["default"])
    alice = User.objects.get(username="alice")
    assert alice.email == "alice@example.com" and alice.check_password(PASSWORD)
    assert Membership.objects.get(user=alice, project_id="default").role == "approver"
    assert browser.get(joined["Location"]).status_code == 200
    entry = AuditEntry.objects.get(action="invitation.accepted")
    assert entry.actor == "alice" and entry.target == Invitation.objects.get().pk
    # The link worked once.
    again = Client().get(accept_url(token))
    assert again.status_code == 404 and invitation_page.NOT_OPEN in parse(again).text()


def test_a_person_with_an_account_logs_in_on_the_page_and_joins(admin_api, inbox):
    ben = User.objects.create_user("ben", password="ben-password-1")
    token = invited(admin_api, inbox, email="ben@work.example", role="viewer")
    browser = Client()
    wrong = browser.post(accept_url(token), {"action": "login", "login-username": "ben", "login-password": "nope"})
    unknown = browser.post(accept_url(token), {"action": "login", "login-username": "nob", "login-password": "nope"})
    # The same refusal whether the username exists or not.
    assert wrong.status_code == unknown.status_code == 422
    refusals = [refusal(answer) for answer in (wrong, unknown)]
    assert refusals[0] == refusals[1] and "Please enter a correct username and password" in refusals[0]
    joined = browser.post(
        accept_url(token), {"action": "login", "login-username": "ben", "login-password": "ben-password-1"}
    )
    assert joined.status_code == 302
    assert Membership.objects.get(user=ben, project_id="default").role == "viewer"
    assert int(browser.session["_auth_user_id"]) == ben.pk


def refusal(answer):
    """What the page says when it refuses, without the form's own fields."""
    return parse(answer).text("form[aria-label='An account I have'] [role=alert]")


def test_a_person_logged_in_joins_with_one_button_and_keeps_a_higher_role(admin_api, inbox):
    cy = make_member("cy", "admin")
    token = invited(admin_api, inbox, email="cy@example.com", role="viewer")
    client = logged_in(cy)
    page = client.get(accept_url(token))
    assert b"Join as cy" in page.content
    joined = post(client, accept_url(token), {"action": "join"})
    assert joined.status_code == 302
    assert Membership.objects.get(user=cy).role == "admin"
    assert Invitation.objects.get().accepted_by == cy


def test_expired_revoked_and_unknown_links_get_one_answer(admin_api, inbox):
    expired = invited(admin_api, inbox, email="e@example.com")
    revoked = invited(admin_api, inbox, email="r@example.com")
    Invitation.objects.filter(email="e@example.com").update(expires_at=timezone.now() - timedelta(seconds=1))
    to_revoke = Invitation.objects.get(email="r@example.com")
    invitations.revoke(to_revoke.project, to_revoke.pk, actor="boss")
    answers = {
        (answer.status_code, parse(answer).text("main"))
        for answer in (Client().get(accept_url(token)) for token in (expired, revoked, "x" * 43))
    }
    assert len(answers) == 1 and answers.pop()[0] == 404
    taken = Client().post(
        accept_url(expired),
        {"action": "new", "new-username": "eve", "new-password1": PASSWORD, "new-password2": PASSWORD},
    )
    assert taken.status_code == 404 and not User.objects.filter(username="eve").exists()
    assert admin_api.get("invitations").json() == {"items": []}


def test_refused_links_from_one_address_are_throttled():
    browser = Client()
    for _ in range(invitation_page.FAILURE_LIMIT):
        assert browser.get(accept_url("guess")).status_code == 404
    throttled = browser.get(accept_url("guess"))
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) > 0


def test_admins_invite_and_revoke_on_the_settings_page(inbox):
    admin = make_member("boss", "admin")
    client = logged_in(admin)
    settings_url = reverse("dashboard:settings", args=["default"])
    refused = post(client, settings_url, {"action": "invite", "email": "nope", "role": "viewer"})
    assert refused.status_code == 422 and not Invitation.objects.exists()
    made = post(client, settings_url, {"action": "invite", "email": "dee@example.com", "role": "approver"})
    assert made.status_code == 302
    invitation = Invitation.objects.get()
    assert (invitation.email, invitation.role, invitation.invited_by) == ("dee@example.com", "approver", "boss")
    page = client.get(settings_url).content.decode()
    assert "dee@example.com" in page and "Invite by email" in page
    deliver_due()
    assert [recipients for recipients, _ in inbox.messages] == [["dee@example.com"]]
    assert post(client, settings_url, {"action": "revoke_invitation", "invitation": invitation.pk}).status_code == 302
    assert Invitation.objects.get().revoked_at is not None
    assert "dee@example.com" not in client.get(settings_url).content.decode()
    assert AuditEntry.objects.filter(action="invitation.revoked", actor="boss").exists()

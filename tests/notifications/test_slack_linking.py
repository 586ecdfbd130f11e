"""Linking a Slack user to a HistoryHub person takes proof, and only proof: a click by a Slack user linked to
nobody is answered, to them alone, with a one-time link (10 minutes, stored hashed); the page it opens, after a
real login, names the Slack user and workspace, and its Confirm (a POST with CSRF) links them. A used, replaced
or expired link, or a Slack user already another person's, links nothing; a person sees and removes their
links on their notifications page."""

import hashlib
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from historyhub.audit.models import AuditEntry
from historyhub.history import client_actions
from historyhub.notifications import slack_links
from historyhub.notifications.models import NotificationSettings, SlackLinkRequest, SlackUserLink
from historyhub.projects.models import Role
from tests.notifications.conftest import SLACK_SIGNING_SECRET, deliver_due
from tests.support.actors import logged_in, make_member, post
from tests.support.html import parse
from tests.support.slack_clicks import TEAM, ephemerals, link_in, payload, send

pytestmark = pytest.mark.django_db
NOTIFICATIONS = reverse("my_notifications")


@pytest.fixture
def message(api, session_id, slack_channel, slack):
    answer = api.post(
        f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "issue_refund", "arguments": {}}
    )
    assert answer.status_code == 201
    deliver_due()
    [posted] = slack.called("chat.postMessage")
    return posted


@pytest.fixture
def ana(db):
    return make_member("ana", Role.APPROVER, password="ana-password-1")


def offered_link(slack, message, slack_user="U1", team=TEAM):
    """The path of the link Slack showed ``slack_user`` after their click."""
    assert send(payload(message, "approve", slack_user, team=team), SLACK_SIGNING_SECRET).status_code == 200
    return urlsplit(link_in(ephemerals(slack)[-1][2])).path


def real_login(username, password, next_path):
    """A browser's login: the form's page, then its POST with the CSRF token; where it was sent next."""
    client = Client(enforce_csrf_checks=True)
    client.get(f"/accounts/login/?next={next_path}")
    answer = client.post(
        "/accounts/login/",
        {
            "username": username,
            "password": password,
            "next": next_path,
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert answer.status_code == 302 and answer["Location"] == next_path
    return client


def confirm(client, path):
    return post(client, path, {})


def test_an_unlinked_slack_users_click_gets_a_one_time_link_to_them_alone_and_decides_nothing(
    message, slack, session_id
):
    before = timezone.now()
    assert send(payload(message, "approve", slack_user="U-new"), SLACK_SIGNING_SECRET).status_code == 200

    [(channel, user, text)] = ephemerals(slack)
    assert (channel, user) == ("C42", "U-new")
    assert text.startswith("Your Slack user is not linked to a HistoryHub person, so nothing was decided.")
    url = link_in(text)
    assert url.startswith("https://historyhub.example.com/integrations/slack/link/")
    token = urlsplit(url).path.split("/")[-2]
    assert len(token) >= 43
    request = SlackLinkRequest.objects.get()
    # Kept hashed: the token itself is in no column.
    assert request.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(list(SlackLinkRequest.objects.values_list()))
    assert (request.team_id, request.slack_user_id, request.team_name, request.slack_user_name) == (
        "T0ACME",
        "U-new",
        "acme",
        "ana.slack",
    )
    assert before + timedelta(minutes=10) <= request.expires_at <= timezone.now() + timedelta(minutes=10)
    assert client_actions.get(session_id, "c1").status == "waiting"
    assert not AuditEntry.objects.filter(action__in=["decision", "vote"]).exists()
    # Slack's profile is never asked: an email links nobody.
    assert {request["path"] for request in slack.requests} == {"/chat.postMessage", "/chat.postEphemeral"}


def test_the_link_page_after_a_real_login_names_the_slack_user_and_links_on_confirm(message, slack, session_id, ana):
    path = offered_link(slack, message)
    assert Client().get(path)["Location"].startswith("/accounts/login/?next=")

    client = real_login("ana", "ana-password-1", path)
    page = parse(client.get(path))
    assert page.text("#slack-user") == "Slack user ana.slack (U1) in the workspace acme (T0ACME)."
    [form] = page.all("form:has(button)")[-1:]
    assert form["method"] == "post" and form.text("button") == "Confirm"
    assert not SlackUserLink.objects.exists()
    assert client.post(path).status_code == 403
    assert not SlackUserLink.objects.exists()

    answer = confirm(client, path)

    assert answer.status_code == 302 and answer["Location"] == NOTIFICATIONS
    link = SlackUserLink.objects.get()
    assert (link.user, link.team_id, link.slack_user_id) == (ana, "T0ACME", "U1")
    assert not SlackLinkRequest.objects.exists()
    send(payload(message, "approve"), SLACK_SIGNING_SECRET)
    assert client_actions.get(session_id, "c1").resolved_by == "ana"


def test_a_used_link_is_refused_and_a_second_person_cannot_claim_it(message, slack, ana):
    path = offered_link(slack, message)
    bob = make_member("bob", Role.APPROVER)
    bobs = logged_in(bob)
    assert "Confirm" in bobs.get(path).content.decode()
    assert confirm(logged_in(ana), path).status_code == 302

    for answer in (bobs.get(path), confirm(bobs, path), confirm(logged_in(ana), path)):
        assert answer.status_code == 404
        assert parse(answer).text("#refused") == slack_links.NOT_FOUND
    assert list(SlackUserLink.objects.values_list("user__username", flat=True)) == ["ana"]


def test_a_newer_link_replaces_the_one_before(message, slack, ana):
    first = offered_link(slack, message)
    second = offered_link(slack, message)
    assert first != second
    assert confirm(logged_in(ana), first).status_code == 404
    assert confirm(logged_in(ana), second).status_code == 302


def test_an_expired_link_is_refused_and_links_nothing(message, slack, ana):
    path = offered_link(slack, message)
    SlackLinkRequest.objects.update(expires_at=timezone.now() + timedelta(seconds=60))
    assert "Confirm" in logged_in(ana).get(path).content.decode()
    SlackLinkRequest.objects.update(expires_at=timezone.now())

    for answer in (logged_in(ana).get(path), confirm(logged_in(ana), path)):
        assert answer.status_code == 410
        assert parse(answer).text("#refused") == slack_links.EXPIRED
    assert not SlackUserLink.objects.exists()


def test_a_slack_user_linked_to_one_person_cannot_be_claimed_by_another(message, slack, ana):
    """A request still open while its Slack user got linked (two clicks racing a confirmation): the page says
    whose it is not, and Confirm links nothing."""
    confirm(logged_in(ana), offered_link(slack, message))
    url = slack_links.offer(slack_links.SlackUser("T0ACME", "U1", "acme", "ana.slack"), timezone.now())
    path = urlsplit(url).path
    bob = logged_in(make_member("bob", Role.APPROVER))

    shown = bob.get(path)
    assert shown.status_code == 409 and parse(shown).text("#refused") == slack_links.TAKEN
    assert not parse(shown).all("button:-soup-contains('Confirm')")
    refused = confirm(bob, path)
    assert refused.status_code == 409 and parse(refused).text("#refused") == slack_links.TAKEN

    assert list(SlackUserLink.objects.values_list("user__username", flat=True)) == ["ana"]
    assert parse(logged_in(ana).get(path)).text("#already") == "This Slack user is already linked to you."


def test_the_same_user_id_in_another_workspace_is_another_slack_user(message, slack, session_id, ana):
    confirm(logged_in(ana), offered_link(slack, message))

    send(payload(message, "approve", team={"id": "T0OTHER", "domain": "other"}), SLACK_SIGNING_SECRET)

    assert client_actions.get(session_id, "c1").status == "waiting"
    assert link_in(ephemerals(slack)[-1][2])


def test_a_person_sees_and_removes_their_link_and_nobody_else_can(message, slack, session_id, ana):
    confirm(logged_in(ana), offered_link(slack, message))
    link = SlackUserLink.objects.get()
    mine = logged_in(ana)
    page = parse(mine.get(NOTIFICATIONS))
    shown = page.one(f"#slack-link-{link.pk}")
    assert shown.text().startswith("ana.slack (U1) in the workspace acme (T0ACME)")
    assert shown.text("button") == "Remove"

    bobs = logged_in(make_member("bob", Role.APPROVER))
    assert post(bobs, NOTIFICATIONS, {"action": "unlink", "link": link.pk}).status_code == 400
    assert SlackUserLink.objects.filter(pk=link.pk).exists()

    assert post(mine, NOTIFICATIONS, {"action": "unlink", "link": link.pk}).status_code == 302
    assert not SlackUserLink.objects.exists()
    assert not parse(mine.get(NOTIFICATIONS)).all("[id^=slack-link-]")
    send(payload(message, "approve"), SLACK_SIGNING_SECRET)
    assert client_actions.get(session_id, "c1").status == "waiting"
    assert link_in(ephemerals(slack)[-1][2])


def test_a_link_to_a_deactivated_person_decides_nothing(message, slack, session_id, ana):
    confirm(logged_in(ana), offered_link(slack, message))
    ana.is_active = False
    ana.save(update_fields=["is_active"])

    send(payload(message, "approve"), SLACK_SIGNING_SECRET)

    assert client_actions.get(session_id, "c1").status == "waiting"
    assert ephemerals(slack)[-1][2] == (
        "The HistoryHub person your Slack user is linked to is deactivated, so nothing was decided."
    )


def test_the_notifications_page_takes_no_slack_member_id(ana):
    client = logged_in(ana)
    answer = post(client, NOTIFICATIONS, {"email": "none", "slack_user_id": "U0123ABC"})
    assert answer.status_code == 302
    assert NotificationSettings.objects.get(user=ana).email == "none"
    assert not SlackUserLink.objects.exists()
    assert not parse(client.get(NOTIFICATIONS)).all("input[name=slack_user_id]")

"""Everyone's own page (docs/people.md): name, email changed only by the link mailed to the new address (through a
real SMTP server on localhost), notification preferences and Slack links shown, the keys the person made (revocable,
audited) and their own decisions, newest first and paged."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import signing
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.audit.models import AuditEntry
from historyhub.dashboard.profile_page import DECISIONS_PAGE_SIZE
from historyhub.projects import administration
from historyhub.projects.models import PendingEmail
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.html import parse
from tests.support.smtp import local_inbox, text_of

pytestmark = pytest.mark.django_db

PROFILE = reverse("profile")
CONFIRM = re.compile(r"https?://\S+(/accounts/profile/email/[^/\s]+/)")


@pytest.fixture
def inbox(settings):
    settings.HISTORYHUB_PUBLIC_URL = "https://historyhub.example.com"
    with local_inbox(settings) as handler:
        yield handler


@pytest.fixture
def ana():
    person = make_member("ana", "approver")
    person.email = "ana@old.example"
    person.save()
    return person


def test_only_people_logged_in_have_a_profile():
    answer = Client().get(PROFILE)
    assert answer.status_code == 302 and answer["Location"].startswith(reverse("login"))


def test_a_person_changes_their_name(ana):
    client = logged_in(ana)
    assert post(client, PROFILE, {"action": "name", "first_name": " Ana ", "last_name": "Lima"}).status_code == 302
    ana.refresh_from_db()
    assert (ana.first_name, ana.last_name) == ("Ana", "Lima")


def test_a_new_email_takes_effect_only_when_its_link_is_opened(ana, inbox):
    client = logged_in(ana)
    refused = post(client, PROFILE, {"action": "email", "email": "not an address"})
    assert refused.status_code == 422 and not PendingEmail.objects.exists() and not inbox.messages
    assert post(client, PROFILE, {"action": "email", "email": "ana@new.example"}).status_code == 302
    ana.refresh_from_db()
    assert ana.email == "ana@old.example"
    assert "ana@new.example" in parse(client.get(PROFILE)).text("#pending-email")
    ((recipients, message),) = inbox.messages
    assert recipients == ["ana@new.example"]
    link = CONFIRM.search(text_of(message)).group(1)
    # Opened anywhere, even logged out: the link is the proof that the address is hers.
    opened = Client().get(link)
    assert opened.status_code == 200 and "ana@new.example" in parse(opened).text("main")
    ana.refresh_from_db()
    assert ana.email == "ana@new.example" and not PendingEmail.objects.exists()
    assert Client().get(link).status_code == 404  # once


def test_a_newer_request_or_a_forged_link_changes_nothing(ana, inbox):
    client = logged_in(ana)
    post(client, PROFILE, {"action": "email", "email": "first@new.example"})
    post(client, PROFILE, {"action": "email", "email": "second@new.example"})
    first, second = (CONFIRM.search(text_of(message)).group(1) for _, message in inbox.messages)
    assert Client().get(first).status_code == 404
    # Signed with the installation's key for another purpose, or tampered with: refused.
    other_purpose = signing.dumps({"user": ana.pk, "email": "evil@example.com"})
    tampered = second[:-4] + ("AAA" if not second.endswith("AAA/") else "BBB") + "/"
    for forged in (reverse("confirm_email", args=[other_purpose]), tampered):
        assert Client().get(forged).status_code == 404
    ana.refresh_from_db()
    assert ana.email == "ana@old.example"
    assert Client().get(second).status_code == 200
    ana.refresh_from_db()
    assert ana.email == "second@new.example"


def test_the_page_shows_preferences_and_slack_links(ana):
    ana.slack_links.create(
        team_id="T1", slack_user_id="U1", team_name="Acme", slack_user_name="ana.l", created_at=timezone.now()
    )
    page = parse(logged_in(ana).get(PROFILE))
    text = page.text("section[aria-labelledby=notifications-title]")
    assert "Every event" in text or "every event" in text.lower()
    assert "ana.l in Acme" in text
    assert page.link("Change how notifications reach you, or unlink a Slack user")


def test_a_person_sees_and_revokes_only_keys_they_made(ana):
    mine, _ = administration.issue_key(ana.memberships.get().project, "ana bot", "decide", actor="ana", made_by=ana)
    theirs, _ = ApiKey.issue("someone else's", "write")
    client = logged_in(ana)
    page = parse(client.get(PROFILE))
    assert page.all(f"#key-{mine.pk}") and not page.all(f"#key-{theirs.pk}")
    assert post(client, PROFILE, {"action": "revoke_key", "key": theirs.pk}).status_code == 400
    assert post(client, PROFILE, {"action": "revoke_key", "key": mine.pk}).status_code == 302
    mine.refresh_from_db(), theirs.refresh_from_db()
    assert mine.revoked_at is not None and theirs.revoked_at is None
    assert AuditEntry.objects.filter(action="key.revoked", actor="ana", target="ana bot").exists()


def test_a_persons_own_decisions_newest_first_paged_linking_to_the_session(ana, api):
    _, key = administration.issue_key(ana.memberships.get().project, "ana's", "decide", actor="ana", made_by=ana)
    as_ana = ApiClient(key)
    assert api.post("sessions", {"sessionId": "s1", "agent": "support"}).status_code == 201
    for number in range(DECISIONS_PAGE_SIZE + 1):
        call = f"c{number:02}"
        assert (
            api.post(
                "sessions/s1/client-actions", {"callId": call, "name": f"act{number:02}", "arguments": {}}
            ).status_code
            == 201
        )
        decided = as_ana.post(f"sessions/s1/client-actions/{call}/decision", {"decision": "approve"})
        assert decided.status_code == 200, decided.content
    make_member("bo", "approver")
    client = logged_in(ana)
    first = parse(client.get(PROFILE))
    rows = first.all("section[aria-labelledby=decisions-title] tbody tr")
    assert len(rows) == DECISIONS_PAGE_SIZE
    assert "act25" in rows[0].text() and "act01" in rows[-1].text()
    assert rows[0].link("s1").node["href"] == reverse("dashboard:session", args=["default", "s1"])
    second = parse(client.get(PROFILE, {"page": 2}))
    assert ["act00" in row.text() for row in second.all("section[aria-labelledby=decisions-title] tbody tr")] == [True]
    # Another person's page shows none of hers.
    bo_page = parse(logged_in(User.objects.get(username="bo")).get(PROFILE))
    assert "You decided nothing yet." in bo_page.text("section[aria-labelledby=decisions-title]")

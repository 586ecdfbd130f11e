"""A person's own notifications page: their email address and preference, under the main navigation (their
Slack links: tests/notifications/test_slack_linking.py)."""

import re

import pytest
from django.urls import reverse

from historyhub.notifications.models import NotificationSettings
from historyhub.projects.models import PendingEmail
from tests.support.actors import post
from tests.support.html import parse
from tests.support.smtp import local_inbox, text_of

pytestmark = pytest.mark.django_db


def test_a_person_chooses_their_email_preference(approver_client, approver):
    url = reverse("my_notifications")
    assert approver_client.get(url).status_code == 200
    answer = post(approver_client, url, {"email": "none"})
    assert answer.status_code == 302
    assert NotificationSettings.objects.get(user=approver).email == "none"
    refused = post(approver_client, url, {"email": "sometimes"})
    assert refused.status_code == 422
    assert NotificationSettings.objects.get(user=approver).email == "none"


def test_the_page_keeps_the_main_navigation_of_the_project_last_opened(approver_client):
    approver_client.get(reverse("dashboard:sessions", args=["default"]))
    page = parse(approver_client.get(reverse("my_notifications")))
    navigation = page.one("nav.primary")
    assert navigation.link("Sessions")["href"] == reverse("dashboard:sessions", args=["default"])
    assert navigation.link("Insights")["href"] == reverse("dashboard:insights", args=["default"])


def test_a_person_sets_their_own_address_here_by_the_link_mailed_to_it(approver_client, approver, settings):
    url = reverse("my_notifications")
    with local_inbox(settings) as inbox:
        refused = post(approver_client, url, {"action": "email", "email": "not an address"})
        assert refused.status_code == 422 and parse(refused).one("#email-title")
        assert not PendingEmail.objects.exists() and not inbox.messages
        assert post(approver_client, url, {"action": "email", "email": "owner@new.example"}).status_code == 302
    assert "owner@new.example" in parse(approver_client.get(url)).text("#pending-email")
    ((recipients, message),) = inbox.messages
    assert recipients == ["owner@new.example"]
    link = re.search(r"https?://\S+(/accounts/profile/email/[^/\s]+/)", text_of(message)).group(1)
    assert approver_client.get(link).status_code == 200
    approver.refresh_from_db()
    assert approver.email == "owner@new.example"
    assert parse(approver_client.get(url)).text("#current-email") == "Your address: owner@new.example"
    # The preference form, without an action, still sets the preference only.
    assert post(approver_client, url, {"email": "digest"}).status_code == 302
    assert NotificationSettings.objects.get(user=approver).email == "digest"

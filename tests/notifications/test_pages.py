"""The channels page of the settings (admins only, CSRF, the secret shown once, retry) and a person's own
notifications page (email preference; its Slack links: tests/notifications/test_slack_linking.py)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from historyhub.data.models import AuditEntry
from historyhub.notifications.models import Channel, Delivery, NotificationSettings
from historyhub.serving.heartbeats import STALE_SECONDS
from historyhub.serving.models import Heartbeat
from tests.support.actors import make_member, post
from tests.support.html import parse

pytestmark = pytest.mark.django_db
URL = reverse("dashboard:channels", args=["default"])


@pytest.fixture
def admin_client(db):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_member("boss", "admin"))
    return client


def create(client, **fields):
    data = {"action": "create", "kind": "webhook", "name": "ops", "events": ["client_action.opened"], **fields}
    return post(client, URL, data)


def test_the_settings_page_links_to_the_channels(admin_client):
    page = parse(admin_client.get(reverse("dashboard:settings", args=["default"])))
    assert page.one("#channels-title")
    assert URL in [link["href"] for link in page.all("a")]


def test_approvers_may_not_see_or_change_channels(approver_client):
    assert approver_client.get(URL).status_code == 403
    assert create(approver_client, url="http://127.0.0.1:9/").status_code == 403
    assert Channel.objects.count() == 0


def test_a_form_without_the_csrf_token_is_refused(admin_client):
    answer = admin_client.post(
        URL, {"action": "create", "kind": "email", "name": "m", "events": ["client_action.opened"]}
    )
    assert answer.status_code == 403
    assert Channel.objects.count() == 0


def test_a_new_webhook_shows_its_secret_once(admin_client, receiver):
    answer = create(admin_client, url=receiver.url)
    assert answer.status_code == 200
    secret = Channel.objects.get().secret
    assert parse(answer).text("#new-secret") == secret
    assert secret not in admin_client.get(URL).content.decode()


def test_a_refused_url_says_why_and_changes_nothing(admin_client, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    answer = create(admin_client, url="http://127.0.0.1:9/")
    assert answer.status_code == 422
    assert "loopback, private or link-local" in answer.content.decode()
    assert Channel.objects.count() == 0


def test_a_channel_is_switched_off_and_a_delivery_sent_again(admin_client, api, session_id, receiver):
    create(admin_client, url=receiver.url)
    channel = Channel.objects.get()
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "x", "arguments": {}})
    delivery = Delivery.objects.get()
    Delivery.objects.filter(pk=delivery.pk).update(status="failed", next_attempt_at=None)
    retried = post(admin_client, URL, {"action": "retry", "channel": channel.pk, "delivery": delivery.pk})
    assert retried.status_code == 302
    assert Delivery.objects.get().status == "pending"
    post(admin_client, URL, {"action": "toggle", "channel": channel.pk})
    assert Channel.objects.get().enabled is False


def test_a_person_chooses_their_email_preference(approver_client, approver):
    url = reverse("my_notifications")
    assert approver_client.get(url).status_code == 200
    answer = post(approver_client, url, {"email": "none"})
    assert answer.status_code == 302
    assert NotificationSettings.objects.get(user=approver).email == "none"
    refused = post(approver_client, url, {"email": "sometimes"})
    assert refused.status_code == 422
    assert NotificationSettings.objects.get(user=approver).email == "none"


def test_operators_add_a_webhook_in_the_admin_with_the_same_checks(db, settings, receiver):
    operator = make_member("root", "admin")
    operator.is_staff = operator.is_superuser = True
    operator.save()
    client = Client()
    client.force_login(operator)
    url = reverse("admin:notifications_channel_add")
    data = {"project": "default", "kind": "webhook", "name": "ops", "events": ["client_action.opened"], "enabled": "on"}
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    refused = client.post(url, {**data, "url": "http://10.1.2.3/"})
    assert refused.status_code == 200 and Channel.objects.count() == 0
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = True
    added = client.post(url, {**data, "url": receiver.url}, follow=True)
    channel = Channel.objects.get()
    assert channel.secret.startswith("whsec_") and channel.events == ["client_action.opened"]
    assert channel.secret in added.content.decode()


def test_a_webhooks_secret_is_rotated_on_the_page_shown_once_and_the_old_one_signs_a_day(admin_client, receiver):
    create(admin_client, url=receiver.url)
    channel = Channel.objects.get()
    old = channel.secret

    answer = post(admin_client, URL, {"action": "rotate", "channel": channel.pk})

    assert answer.status_code == 200
    rotated = Channel.objects.get()
    assert parse(answer).text("#new-secret") == rotated.secret != old
    assert rotated.previous_secret == old
    assert timedelta(hours=23) < rotated.previous_secret_until - timezone.now() <= timedelta(hours=24)
    assert rotated.secret not in admin_client.get(URL).content.decode()
    assert AuditEntry.objects.filter(action="channel.secret_rotated", actor="boss", target=str(channel.pk)).exists()


def test_only_a_webhook_has_a_rotate_button_and_a_forced_rotation_of_another_kind_changes_nothing(admin_client):
    create(admin_client, kind="email", name="mail")
    channel = Channel.objects.get()
    page = parse(admin_client.get(URL))
    assert not page.all("input[name=action][value=rotate]")

    answer = post(admin_client, URL, {"action": "rotate", "channel": channel.pk})

    assert answer.status_code == 400
    assert Channel.objects.get().secret == channel.secret
    assert not AuditEntry.objects.filter(action="channel.secret_rotated").exists()


def test_approvers_may_not_rotate_a_secret(admin_client, approver_client, receiver):
    create(admin_client, url=receiver.url)
    channel = Channel.objects.get()

    assert post(approver_client, URL, {"action": "rotate", "channel": channel.pk}).status_code == 403
    assert Channel.objects.get().secret == channel.secret


def heartbeat_of_the_worker(seconds_ago):
    Heartbeat.objects.update_or_create(
        name="deliver",
        defaults={"last_run_at": timezone.now() - timedelta(seconds=seconds_ago), "pid": 1234, "host": "worker-1"},
    )


@pytest.mark.parametrize(
    ("seconds_ago", "warned"), [(None, True), (5, False), (STALE_SECONDS - 5, False), (STALE_SECONDS + 5, True)]
)
def test_the_channels_and_settings_pages_warn_when_the_delivery_worker_has_not_run_for_a_minute(
    seconds_ago, warned, db
):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_member("dora", "admin", project="delta"))
    if seconds_ago is not None:
        heartbeat_of_the_worker(seconds_ago)
    # The sweep's heartbeat says nothing about the delivery worker.
    Heartbeat.objects.create(name="sweep", last_run_at=timezone.now(), pid=1, host="worker-1")
    for url in (reverse("dashboard:channels", args=["delta"]), reverse("dashboard:settings", args=["delta"])):
        page = parse(client.get(url))
        warnings = page.all("#delivery-worker-warning")
        assert len(warnings) == (1 if warned else 0), url
        if warned:
            assert "has not run in the last minute" in page.text("#delivery-worker-warning")

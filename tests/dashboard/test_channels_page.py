"""The channels page of the settings (admins only, CSRF, the secret shown once, retry), and the admin's channel form
with the same checks. A person's own notifications page: tests/dashboard/test_my_notifications_page.py."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from historyhub.audit.models import AuditEntry
from historyhub.notifications import channels, trial_event
from historyhub.notifications.delivery_worker import Worker
from historyhub.notifications.models import Channel, Delivery
from historyhub.serving.heartbeats import STALE_SECONDS
from historyhub.serving.models import Heartbeat
from tests.support.actors import make_member, post
from tests.support.html import parse
from tests.support.tiny_server import TinyServer

pytestmark = pytest.mark.django_db
URL = reverse("dashboard:channels", args=["default"])


@pytest.fixture(autouse=True)
def private_networks_allowed(settings):
    """Webhooks here reach a real HTTP server on localhost (docs/notifications.md, "SSRF"), as in the notification
    tests (tests/notifications/conftest.py)."""
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_RETRY_DELAYS = [0, 0, 0]
    settings.HISTORYHUB_PUBLIC_URL = "https://historyhub.example.com"
    settings.NOTIFICATIONS_SEND_THREADS = 1


@pytest.fixture
def receiver():
    """A local HTTP server answering 200 to everything, recording what it received."""
    with TinyServer([]) as server:
        yield server


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


@pytest.mark.parametrize("seconds_ago", [None, 5, STALE_SECONDS + 5])
def test_the_channels_page_says_when_and_where_the_delivery_worker_last_ran(seconds_ago, admin_client):
    if seconds_ago is not None:
        heartbeat_of_the_worker(seconds_ago)

    page = parse(admin_client.get(URL))

    if seconds_ago is None:
        assert page.all("#delivery-worker-status") == []
        return
    status = page.one("#delivery-worker-status")
    running = seconds_ago < STALE_SECONDS
    assert status.text().startswith("The notification worker runs" if running else "It last ran")
    assert "on worker-1 (pid 1234)" in status.text()
    assert status.one("time[data-relative]")


@pytest.fixture
def webhook_channel(admin_client, receiver):
    create(admin_client, url=receiver.url, agents="support*", actions="refund_*")
    return Channel.objects.get()


def edit(client, channel, **fields):
    data = {
        "action": "edit",
        "channel": channel.pk,
        "name": channel.name,
        "events": channel.events,
        "agents": " ".join(channel.agents),
        "actions": " ".join(channel.actions),
        "url": channel.url,
        "enabled": "on" if channel.enabled else "",
        **fields,
    }
    return post(client, URL, data)


def test_the_edit_form_shows_a_channels_settings_and_never_its_secret(admin_client, webhook_channel):
    page = parse(admin_client.get(URL))
    form = page.one(f"#edit-{webhook_channel.pk}")
    assert form.field("name")["value"] == "ops"
    assert form.field("agents")["value"] == "support*"
    assert form.field("actions")["value"] == "refund_*"
    assert form.field("url")["value"] == webhook_channel.url
    assert [box["value"] for box in form.all("input[name=events][checked]")] == ["client_action.opened"]
    assert form.one("input[name=enabled][checked]")
    assert not form.all("[name=secret]")
    assert webhook_channel.secret not in page.text()


def test_an_admin_edits_a_channel_and_the_change_is_audited(admin_client, webhook_channel, receiver):
    answer = edit(
        admin_client,
        webhook_channel,
        name="ops on call",
        events=["client_action.opened", "client_action.decided"],
        agents="support* billing",
        actions="",
        url=receiver.url + "/hooks",
        enabled="",
    )

    assert answer.status_code == 302
    channel = Channel.objects.get()
    assert (channel.name, channel.events, channel.agents, channel.actions) == (
        "ops on call",
        ["client_action.opened", "client_action.decided"],
        ["support*", "billing"],
        [],
    )
    assert (channel.url, channel.enabled) == (receiver.url + "/hooks", False)
    assert channel.secret == webhook_channel.secret
    row = AuditEntry.objects.get(action="channel.changed", target=channel.pk)
    assert row.actor == "boss"
    assert row.details == {
        "name": "ops on call",
        "events": ["client_action.opened", "client_action.decided"],
        "agents": ["support*", "billing"],
        "actions": [],
        "enabled": False,
        "url": receiver.url + "/hooks",
    }
    assert "The channel ops on call was saved." in parse(admin_client.get(URL)).text("#page-messages")


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"name": ""}, "This field is required."),
        ({"events": []}, "This field is required."),
        ({"events": ["client_action.opened", "channel.test"]}, "Select a valid choice."),
        ({"url": "http://10.1.2.3/hooks"}, "url must not point at a loopback, private or link-local address."),
        ({"url": "ftp://example.com/"}, "url must"),
        ({"agents": "a" * 201}, "agents holds globs of 1-200 characters."),
    ],
)
def test_a_refused_edit_says_why_in_its_form_and_changes_nothing(admin_client, webhook_channel, settings, fields, said):
    settings.WEBHOOKS_ALLOW_PRIVATE_NETWORKS = False
    answer = edit(admin_client, webhook_channel, **{"name": "renamed", **fields})

    assert answer.status_code == 422
    form = parse(answer).one(f"#edit-{webhook_channel.pk}")
    assert said in form.text()
    assert parse(answer).one(f"details.channel-edit[open] #edit-{webhook_channel.pk}")
    # What was typed stays in the form, to be corrected.
    assert form.field("name").get("value", "") == fields.get("name", "renamed")
    channel = Channel.objects.get()
    assert (channel.name, channel.url, channel.agents) == ("ops", webhook_channel.url, ["support*"])
    assert not AuditEntry.objects.filter(action="channel.changed").exists()


def test_approvers_may_not_edit_and_an_edit_needs_the_csrf_token(admin_client, approver_client, webhook_channel):
    assert edit(approver_client, webhook_channel, name="mine").status_code == 403
    data = {"action": "edit", "channel": webhook_channel.pk, "name": "mine", "events": ["client_action.opened"]}
    assert admin_client.post(URL, data).status_code == 403
    assert Channel.objects.get().name == "ops"


def test_an_edit_of_another_projects_channel_changes_nothing(admin_client, db):
    make_member("olga", "admin", project="other")
    other = channels.create("other", "email", actor="olga", name="theirs", events=["client_action.opened"])
    answer = edit(admin_client, other, name="mine")
    assert answer.status_code == 400
    assert Channel.objects.get(pk=other.pk).name == "theirs"


def test_a_slack_channel_edits_its_slack_channel_and_an_email_channel_has_neither_url_nor_slack(admin_client):
    create(admin_client, kind="slack", name="approvals", slack_channel="C42")
    create(admin_client, kind="email", name="mail")
    slack, mail = Channel.objects.order_by("name")
    page = parse(admin_client.get(URL))
    assert page.one(f"#edit-{slack.pk}").field("slack_channel")["value"] == "C42"
    assert not page.one(f"#edit-{slack.pk}").all("[name=url]")
    assert not page.one(f"#edit-{mail.pk}").all("[name=url], [name=slack_channel]")

    assert edit(admin_client, slack, slack_channel="C43").status_code == 302
    assert Channel.objects.get(pk=slack.pk).slack_channel == "C43"


def test_send_a_test_event_queues_it_and_its_row_asks_again_until_the_worker_has_tried(
    admin_client, approver_client, webhook_channel, receiver
):
    assert post(approver_client, URL, {"action": "test", "channel": webhook_channel.pk}).status_code == 403
    assert not Delivery.objects.exists()

    answer = post(admin_client, URL, {"action": "test", "channel": webhook_channel.pk})

    assert answer.status_code == 302
    delivery = Delivery.objects.get()
    assert (delivery.event, delivery.status) == ("channel.test", "pending")
    assert AuditEntry.objects.filter(action="channel.test_sent", actor="boss", target=str(delivery.pk)).exists()
    row_url = reverse("dashboard:channel_delivery", args=["default", webhook_channel.pk, delivery.pk])
    row = parse(admin_client.get(URL)).one(f"#delivery-{delivery.pk}")
    assert row["hx-get"] == row_url and row["hx-trigger"] == "every 2s"
    assert "not tried yet" in row.text()
    assert approver_client.get(row_url).status_code == 403

    Worker().deliver_due()

    row = parse(admin_client.get(row_url)).one(f"#delivery-{delivery.pk}")
    assert row.get("hx-get") is None
    assert row.text("[data-label=Status]") == "delivered"
    assert len(receiver.requests) == 1


def test_only_a_test_events_row_asks_for_itself_again(admin_client, api, session_id, webhook_channel):
    api.post(f"sessions/{session_id}/client-actions", {"callId": "c1", "name": "refund_order", "arguments": {}})
    event = Delivery.objects.get()
    test = trial_event.send(webhook_channel, actor="boss")
    page = parse(admin_client.get(URL))
    assert page.one(f"#delivery-{event.pk}").get("hx-get") is None
    assert page.one(f"#delivery-{test.pk}").get("hx-get")


def test_a_test_event_a_receiver_refuses_shows_failed_with_its_status(admin_client):
    with TinyServer([(503, {}, {"error": "maintenance"})]) as receiver:
        create(admin_client, url=receiver.url)
        channel = Channel.objects.get()
        post(admin_client, URL, {"action": "test", "channel": channel.pk})
        Worker().deliver_due()
    delivery = Delivery.objects.get()
    row = parse(admin_client.get(reverse("dashboard:channel_delivery", args=["default", channel.pk, delivery.pk])))
    assert row.text("[data-label=Status]") == "failed: 503"
    assert "maintenance" in row.text("[data-label=Attempts]")


def test_a_disabled_channel_has_no_test_button_and_a_forced_test_is_refused(admin_client, webhook_channel):
    post(admin_client, URL, {"action": "toggle", "channel": webhook_channel.pk})
    assert not parse(admin_client.get(URL)).all("input[name=action][value=test]")
    answer = post(admin_client, URL, {"action": "test", "channel": webhook_channel.pk})
    assert answer.status_code == 400
    assert not Delivery.objects.exists()


def test_another_projects_delivery_row_is_not_found(admin_client, db):
    make_member("olga", "admin", project="other")
    theirs = channels.create("other", "email", actor="olga", name="theirs", events=["client_action.opened"])
    delivery = trial_event.send(theirs, actor="olga")
    url = reverse("dashboard:channel_delivery", args=["default", theirs.pk, delivery.pk])
    assert admin_client.get(url).status_code == 404

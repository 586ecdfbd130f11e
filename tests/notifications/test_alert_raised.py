"""Insights alerts (docs/insights.md, "Alerts"): the sweep raises ``alert.raised`` once per crossing, through the
outbox, to the project's channels that want it; again only after the number fell back and crossed anew."""

from datetime import timedelta

import pytest

from historyhub.history.models import ClientAction
from historyhub.insights import alerts
from historyhub.insights.models import AlertFiring, AlertKind, AlertRule
from historyhub.projects import administration
from historyhub.projects.models import Role
from tests.insights.seeding import START, action, minutes, session
from tests.notifications.conftest import deliver_due
from tests.support.actors import make_member

NOW = START + timedelta(hours=3)


@pytest.fixture
def alert_webhook(admin_api, receiver):
    answer = admin_api.post(
        "channels", {"kind": "webhook", "name": "alerts", "events": ["alert.raised"], "url": receiver.url}
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def test_a_crossing_is_raised_once_and_again_only_after_it_cleared(alert_webhook, receiver):
    support = session("s1")
    action(support, "w1", "refund", minutes(0))
    action(support, "w2", "refund", minutes(10))
    rule = AlertRule.objects.create(project_id="default", kind=AlertKind.WAITING_COUNT, threshold=1)

    assert alerts.evaluate(NOW) == 1
    assert alerts.evaluate(NOW + minutes(1)) == 0  # still crossed: not raised again
    deliver_due()
    [request] = receiver.requests
    body = request["body"]
    assert body["type"] == "alert.raised"
    assert body["data"]["alert"] == {
        "alertId": rule.pk,
        "kind": "waiting_count",
        "threshold": 1.0,
        "action": None,
        "description": "More than N actions wait",
    }
    assert body["data"]["value"] == 2.0
    assert body["data"]["url"] == "https://historyhub.example.com/p/default/insights/"

    ClientAction.objects.filter(call_id="w2").update(status="rejected", decision="reject", resolved_at=NOW)
    assert alerts.evaluate(NOW + minutes(2)) == 0
    [firing] = AlertFiring.objects.all()
    assert firing.cleared_at == NOW + minutes(2)

    action(support, "w3", "refund", minutes(20))
    assert alerts.evaluate(NOW + minutes(3)) == 1
    assert AlertFiring.objects.filter(cleared_at__isnull=True).count() == 1
    assert AlertFiring.objects.count() == 2


def test_the_reject_rate_of_an_action_over_the_last_day(alert_webhook):
    support = session("s1")
    action(support, "a1", "delete_account", minutes(0), minutes(1), "reject", by="ann")
    action(support, "a2", "delete_account", minutes(5), minutes(1), "approve", by="ann")
    action(support, "a3", "refund", minutes(6), minutes(1), "reject", by="ann")
    rule = AlertRule.objects.create(
        project_id="default", kind=AlertKind.REJECT_RATE, threshold=60, action="delete_account"
    )
    assert alerts.measure(rule, NOW) == pytest.approx(50.0)
    assert alerts.evaluate(NOW) == 0
    rule.threshold = 40
    rule.save()
    assert alerts.evaluate(NOW) == 1
    # A day later the decisions are out of the window: nothing to measure, and the alert clears.
    assert alerts.measure(rule, NOW + timedelta(days=1)) is None
    alerts.evaluate(NOW + timedelta(days=1))
    assert AlertFiring.objects.get().cleared_at == NOW + timedelta(days=1)


def test_waiting_longer_measures_the_oldest_in_minutes(db):
    support = session("s1")
    action(support, "w1", "refund", minutes(0))
    rule = AlertRule.objects.create(project_id="default", kind=AlertKind.WAITING_LONGER, threshold=30)
    assert alerts.measure(rule, NOW) == pytest.approx(180.0)


def test_another_projects_numbers_never_raise_a_rule(alert_webhook, receiver):
    administration.create_project("staging", "Staging")
    theirs = session("x1", project="staging")
    action(theirs, "w1", "refund", minutes(0))
    AlertRule.objects.create(project_id="default", kind=AlertKind.WAITING_COUNT, threshold=0)
    assert alerts.evaluate(NOW) == 0
    deliver_due()
    assert receiver.requests == []


def test_email_goes_to_the_projects_admins(admin_api, mailoutbox):
    boss = make_member("boss", Role.ADMIN)
    boss.email = "boss@example.com"
    boss.save(update_fields=["email"])
    answer = admin_api.post("channels", {"kind": "email", "name": "mail", "events": ["alert.raised"]})
    assert answer.status_code == 201, answer.content
    action(session("s1"), "w1", "refund", minutes(0))
    AlertRule.objects.create(project_id="default", kind=AlertKind.WAITING_COUNT, threshold=0)
    assert alerts.evaluate(NOW) == 1
    deliver_due()
    [mail] = mailoutbox
    assert mail.to == ["boss@example.com"]
    assert mail.subject == "[HistoryHub] Alert: More than N actions wait"
    assert "https://historyhub.example.com/p/default/insights/" in mail.body


def test_slack_gets_one_message_with_a_link(admin_api, slack):
    answer = admin_api.post(
        "channels", {"kind": "slack", "name": "alerts", "events": ["alert.raised"], "slackChannel": "C42"}
    )
    assert answer.status_code == 201, answer.content
    action(session("s1"), "w1", "refund", minutes(0))
    AlertRule.objects.create(project_id="default", kind=AlertKind.WAITING_COUNT, threshold=0)
    assert alerts.evaluate(NOW) == 1
    deliver_due()
    [posted] = slack.called("chat.postMessage")
    assert posted["body"]["channel"] == "C42"
    assert "https://historyhub.example.com/p/default/insights/" in posted["body"]["text"]

"""Alerts: thresholds a project's admins set, compared with the numbers by the sweep; each crossing is announced
once as ``alert.raised`` through the outbox, and cleared when the number falls back (docs/insights.md, "Alerts")."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from historyhub.audit import log as audit_log
from historyhub.history.action_events import Event
from historyhub.insights import approvals, ranges, usage
from historyhub.insights.models import AlertFiring, AlertKind, AlertRule
from historyhub.insights.ranges import Filters
from historyhub.lib import globs, jsonvalues, wakeups
from historyhub.lib.times import format_time
from historyhub.notifications.models import Channel, Delivery, DeliveryStatus

DAY = timedelta(days=1)


def measure(rule: AlertRule, now: datetime) -> float | None:
    """The number the rule watches, now; None when there is nothing to measure (no action waits, none decided)."""
    filters = Filters(action=rule.action)
    if rule.kind == AlertKind.WAITING_LONGER:
        oldest = approvals.waiting_now(approvals.of_project(rule.project_id, filters), now).oldest_seconds
        return None if oldest is None else oldest / 60
    if rule.kind == AlertKind.WAITING_COUNT:
        return float(approvals.waiting_now(approvals.of_project(rule.project_id, filters), now).count)
    last_day = ranges.Range(now - DAY, now, "hour")
    if rule.kind == AlertKind.REJECT_RATE:
        rows = approvals.compute(rule.project_id, last_day, filters, now).by_action
        return max((100 * row.rate(row.rejected) for row in rows), default=None)
    spent = usage.compute(rule.project_id, last_day, Filters())
    return sum(tokens.cost for tokens in spent.by_model.values())


def evaluate(now: datetime | None = None) -> int:
    """Compare every rule with its number: raise the ones newly crossed, clear the ones no longer crossed.
    Returns how many were raised."""
    now = now or timezone.now()
    raised = 0
    for rule in AlertRule.objects.select_related("project"):
        value = measure(rule, now)
        crossed = value is not None and value > float(rule.threshold)
        open_firing = rule.firings.filter(cleared_at__isnull=True).first()
        if value is not None and crossed and open_firing is None:
            raised += _raise(rule, value, now)
        elif not crossed and open_firing is not None:
            AlertFiring.objects.filter(pk=open_firing.pk, cleared_at__isnull=True).update(cleared_at=now)
    return raised


def _raise(rule: AlertRule, value: float, now: datetime) -> int:
    try:
        with transaction.atomic():
            firing = AlertFiring.objects.create(rule=rule, fired_at=now, value=value)
            announce(rule, firing)
    except IntegrityError:
        # Another sweep raised it at the same time (one open firing per rule): it was announced once, there.
        return 0
    return 1


def announce(rule: AlertRule, firing: AlertFiring) -> None:
    """Outbox rows for the project's channels that want ``alert.raised``, in the transaction that records the
    firing. An alert is about the project, so agent globs do not apply; a channel's action globs apply to a rule
    about one action."""
    channels = [
        channel
        for channel in Channel.objects.filter(project_id=rule.project_id, enabled=True)
        if Event.ALERT_RAISED in channel.events
        and (not rule.action or globs.matches(rule.action, channel.actions, empty_matches_all=True))
    ]
    if not channels:
        return
    body = jsonvalues.dumps(payload(rule, firing))
    Delivery.objects.bulk_create(
        Delivery(
            channel=channel,
            event=Event.ALERT_RAISED,
            body=body,
            created_at=firing.fired_at,
            next_attempt_at=firing.fired_at,
            status=DeliveryStatus.PENDING,
        )
        for channel in channels
    )
    wakeups.wake_workers()


def payload(rule: AlertRule, firing: AlertFiring) -> dict:
    page = reverse("dashboard:insights", kwargs={"project_id": rule.project_id})
    return {
        "type": str(Event.ALERT_RAISED),
        "timestamp": format_time(firing.fired_at),
        "data": {
            "projectId": rule.project_id,
            "alert": {
                "alertId": rule.pk,
                "kind": rule.kind,
                "threshold": float(rule.threshold),
                "action": rule.action or None,
                "description": rule.get_kind_display(),
            },
            "value": firing.value,
            "firedAt": format_time(firing.fired_at),
            "url": settings.HISTORYHUB_PUBLIC_URL + page,
        },
    }


class Audited:
    ALERT_ADDED = "alert.added"
    ALERT_DELETED = "alert.deleted"


def add(project_id: str, kind: str, threshold: float, action: str, actor: str) -> AlertRule:
    """A new rule of the project, recorded in the audit log; the next sweep compares it."""
    with transaction.atomic():
        rule = AlertRule.objects.create(project_id=project_id, kind=kind, threshold=threshold, action=action)
        audit_log.record(
            project_id, actor, Audited.ALERT_ADDED, rule.get_kind_display(), threshold=str(threshold), actionName=action
        )
    return rule


def delete(project_id: str, rule_id: int, actor: str) -> bool:
    """Delete a rule of the project (another project's rule id deletes nothing)."""
    with transaction.atomic():
        rule = AlertRule.objects.filter(project_id=project_id, pk=rule_id).first()
        if rule is None:
            return False
        audit_log.record(project_id, actor, Audited.ALERT_DELETED, rule.get_kind_display(), alertId=rule.pk)
        rule.delete()
    return True


def listing(project_id: str) -> list[AlertRule]:
    """The project's rules, each with its latest crossings (``recent``), for the page."""
    rules = list(AlertRule.objects.filter(project_id=project_id).order_by("id"))
    for rule in rules:
        rule.recent = list(rule.firings.order_by("-fired_at")[:5])  # type: ignore[attr-defined]
    return rules

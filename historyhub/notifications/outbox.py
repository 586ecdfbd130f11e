"""The worker's side of the outbox: claim due rows for a lease, send each, record how it went
(docs/notifications.md, "Delivery").

Claiming is one short transaction: on PostgreSQL ``SELECT … FOR UPDATE SKIP LOCKED`` lets several workers
take disjoint rows at once; SQLite runs one worker and its write lock serialises the claim. A claimed row
carries a lease (``claimed_until``) and a claim token: a worker killed while sending leaves the row to be
claimed again once the lease runs out (at least once), and a worker whose lease ran out cannot record over
the one that took the row after it.
"""

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from ulid import ULID

from historyhub.audit import log as audit_log
from historyhub.lib import deadlines
from historyhub.lib.wakeups import wake_workers
from historyhub.notifications.models import TEST_EVENT, Attempt, Channel, Delivery, DeliveryStatus
from historyhub.notifications.transports import Outcome, transport_for


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    DELIVERY_SENT_AGAIN = "delivery.sent_again"


log = logging.getLogger(__name__)

BATCH = 50


def due(now):
    """Pending rows whose time has come and that no live lease holds."""
    unclaimed = Q(claimed_until__isnull=True) | Q(claimed_until__lte=now)
    return Delivery.objects.filter(unclaimed, status=DeliveryStatus.PENDING, next_attempt_at__lte=now)


def claim(limit=BATCH, now=None, excluding_channels=(), excluding=()):
    """Take up to ``limit`` due rows for this worker's lease, none of ``excluding_channels`` (whose destinations
    have no free slot in this worker) nor the rows ``excluding`` (which it is sending); returns them with their
    channels."""
    now = now or timezone.now()
    token = str(ULID())
    with transaction.atomic():
        rows = due(now).exclude(channel_id__in=excluding_channels).exclude(id__in=excluding)
        rows = rows.order_by("next_attempt_at", "id")
        if connection.vendor == "postgresql":
            rows = rows.select_for_update(skip_locked=True, of=("self",))
        ids = list(rows.values_list("id", flat=True)[:limit])
        if not ids:
            return []
        lease = now + timedelta(seconds=settings.NOTIFICATIONS_LEASE_SECONDS)
        Delivery.objects.filter(id__in=ids).update(claimed_until=lease, claim=token)
    return list(Delivery.objects.select_related("channel").filter(id__in=ids, claim=token).order_by("id"))


def release(delivery):
    """Give back a claimed row unsent (its destination had no free slot): due as it was, for any worker."""
    Delivery.objects.filter(pk=delivery.pk, claim=delivery.claim).update(claimed_until=None, claim="")


def next_due_in(now=None, excluding_channels=()):
    """Seconds until the next pending row is due (0 if one is), or None when none is pending; rows of
    ``excluding_channels`` wait for a free slot, not for a time."""
    now = now or timezone.now()
    soonest = (
        Delivery.objects.filter(status=DeliveryStatus.PENDING)
        .exclude(claimed_until__gt=now)
        .exclude(channel_id__in=excluding_channels)
        .order_by("next_attempt_at")
        .values_list("next_attempt_at", flat=True)
        .first()
    )
    leased = (
        Delivery.objects.filter(status=DeliveryStatus.PENDING, claimed_until__gt=now)
        .order_by("claimed_until")
        .values_list("claimed_until", flat=True)
        .first()
    )
    moments = [moment for moment in (soonest, leased) if moment is not None]
    if not moments:
        return None
    return max(0.0, (min(moments) - now).total_seconds())


def deliver(delivery):
    """Send one claimed delivery through its channel's transport, under one deadline for the whole exchange
    (``deadlines``), and record the attempt."""
    channel = delivery.channel
    started = time.monotonic()
    if not channel.enabled:
        outcome = Outcome(False, excerpt="The channel is disabled.")
    else:
        # The whole exchange: EMAIL_TIMEOUT for the SMTP server, WEBHOOK_TIMEOUT_SECONDS for receivers and Slack.
        seconds = settings.EMAIL_TIMEOUT if channel.kind == "email" else settings.WEBHOOK_TIMEOUT_SECONDS
        with deadlines.Deadline(seconds) as deadline:
            try:
                outcome = transport_for(channel.kind).send(delivery, channel)
            except Exception as error:
                # A transport's bug must not stop the worker: the row is retried on schedule, the error logged
                # (an error that only follows from the deadline's cut is no bug).
                if not deadline.passed:
                    log.exception("delivery %s to channel %s failed", delivery.pk, channel.pk)
                outcome = Outcome(False, excerpt=f"{type(error).__name__}: {error}"[:500])
        if deadline.passed:
            # Whatever was read before the cut is no answer: a cut can even look like an empty 200.
            outcome = Outcome(False, excerpt=f"No whole answer within {seconds} s (connecting, sending and reading).")
    record(delivery, outcome, int((time.monotonic() - started) * 1000))
    return outcome


def record(delivery, outcome, duration_ms, now=None):
    """Write down an attempt and what follows from it: delivered, due again, failed, or the channel disabled."""
    now = now or timezone.now()
    attempts = delivery.attempt_count + 1
    if outcome.delivered:
        changes = {"status": DeliveryStatus.DELIVERED, "next_attempt_at": None}
    elif outcome.gone or attempts > len(settings.WEBHOOK_RETRY_DELAYS) or delivery.event == TEST_EVENT:
        # A test event is tried once: the person who sent it waits for this answer, not for a retry hours later.
        changes = {"status": DeliveryStatus.FAILED, "next_attempt_at": None}
    else:
        delay = settings.WEBHOOK_RETRY_DELAYS[attempts - 1]
        if outcome.retry_after is not None:
            delay = max(delay, outcome.retry_after)
        changes = {"next_attempt_at": now + timedelta(seconds=delay)}
    with transaction.atomic():
        # Only the holder of the claim records: a worker whose lease ran out lost the row to another.
        held = Delivery.objects.filter(pk=delivery.pk, claim=delivery.claim).update(
            attempt_count=attempts, claimed_until=None, claim="", **changes
        )
        if not held:
            return False
        Attempt.objects.create(
            delivery=delivery, at=now, status=outcome.status, duration_ms=duration_ms, excerpt=outcome.excerpt[:500]
        )
        if outcome.gone:
            Channel.objects.filter(pk=delivery.channel_id).update(
                enabled=False, disabled_reason="The receiver answered 410 Gone."
            )
    for name, value in changes.items():
        setattr(delivery, name, value)
    delivery.attempt_count = attempts
    return True


def send_again(delivery, *, actor):
    """A person's or key's retry, recorded as ``actor``'s: the delivery is due at once with its same body and
    ``webhook-id``."""
    channel = delivery.channel
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.PENDING, next_attempt_at=timezone.now(), attempt_count=0, claimed_until=None, claim=""
        )
        audit_log.record(
            channel.project_id,
            actor,
            Audited.DELIVERY_SENT_AGAIN,
            str(delivery.pk),
            channelId=channel.pk,
            channelName=channel.name,
            event=delivery.event,
            webhookId=delivery.webhook_id,
        )
        wake_workers()
    delivery.refresh_from_db()
    return delivery

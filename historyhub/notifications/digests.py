"""The hourly digest: a person who prefers it gets one mail with the events gathered since their last one,
once the oldest of them is ``EMAIL_DIGEST_SECONDS`` old (docs/notifications.md, "Email").

The email transport adds entries; the worker sends what is due. Entries are marked sent before the mail goes
(a conditional UPDATE, so two workers never both take one) and unmarked if it could not be sent.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import timezone

from historyhub.lib import deadlines, jsonvalues
from historyhub.notifications.models import DigestEntry

log = logging.getLogger(__name__)


def gather(people, delivery):
    now = timezone.now()
    DigestEntry.objects.bulk_create(
        [DigestEntry(user=person, delivery=delivery, created_at=now) for person in people], ignore_conflicts=True
    )


def send_due(now=None):
    """Send every digest that is due; how many mails went."""
    now = now or timezone.now()
    due_before = now - timedelta(seconds=settings.EMAIL_DIGEST_SECONDS)
    people = (
        DigestEntry.objects.filter(sent_at__isnull=True, created_at__lte=due_before)
        .values_list("user_id", flat=True)
        .distinct()
    )
    sent = 0
    for user_id in list(people):
        pending = DigestEntry.objects.filter(user_id=user_id, sent_at__isnull=True)
        ids = list(pending.values_list("id", flat=True))
        taken = DigestEntry.objects.filter(id__in=ids, sent_at__isnull=True).update(sent_at=now)
        if taken != len(ids):
            # Another worker took some of them meanwhile: it sends its part; give ours back for the next round.
            DigestEntry.objects.filter(id__in=ids, sent_at=now).update(sent_at=None)
            continue
        try:
            mail(user_id, ids)
        except OSError as error:
            log.warning("digest mail to user %s failed: %s", user_id, error)
            DigestEntry.objects.filter(id__in=ids).update(sent_at=None)
            continue
        sent += 1
    return sent


def mail(user_id, ids):
    person = get_user_model().objects.get(pk=user_id)
    entries = DigestEntry.objects.filter(id__in=ids).select_related("delivery").order_by("created_at", "id")
    events = [jsonvalues.loads(entry.delivery.body) for entry in entries]
    context = {"events": events}
    subject = f"[HistoryHub] {len(events)} event{'s' if len(events) != 1 else ''} about actions you may decide"
    message = EmailMultiAlternatives(subject, render_to_string("notifications/digest.txt", context), to=[person.email])
    message.attach_alternative(render_to_string("notifications/digest.html", context), "text/html")
    with deadlines.Deadline(settings.EMAIL_TIMEOUT) as deadline:
        message.send()
    if deadline.passed:
        raise deadlines.DeadlinePassed(f"the SMTP server did not take the digest within {settings.EMAIL_TIMEOUT} s")

"""Mailing invitations' links: the delivery worker's part (docs/people.md, "Invitations").

An invitation waits to be mailed while ``next_mail_at`` is set; the worker takes it with a conditional UPDATE
that moves ``next_mail_at`` a lease ahead (two workers never both send one; one killed while sending leaves it
to be taken again when the lease runs out), then mails the link and empties ``mail_token``. A mail server that
refuses or does not answer puts it back on the notifications' retry schedule (``WEBHOOK_RETRY_DELAYS``).
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from historyhub.lib import deadlines
from historyhub.projects.models import Invitation

log = logging.getLogger(__name__)

BATCH = 20


def link(token):
    """The absolute link that accepts an invitation."""
    return settings.HISTORYHUB_PUBLIC_URL + reverse("accept_invitation", args=[token])


def send_due(now=None):
    """Mail every invitation whose time has come; how many went."""
    now = now or timezone.now()
    due = Invitation.objects.filter(next_mail_at__lte=now, accepted_at__isnull=True, revoked_at__isnull=True)
    sent = 0
    for invitation_id, before in list(due.order_by("next_mail_at").values_list("id", "next_mail_at")[:BATCH]):
        lease = now + timedelta(seconds=settings.NOTIFICATIONS_LEASE_SECONDS)
        if not Invitation.objects.filter(pk=invitation_id, next_mail_at=before).update(next_mail_at=lease):
            continue  # another worker took it
        invitation = Invitation.objects.select_related("project").get(pk=invitation_id)
        try:
            mail(invitation)
        except OSError as error:
            log.warning("invitation %s could not be mailed: %s", invitation_id, error)
            attempts = invitation.mail_attempts + 1
            delays = settings.WEBHOOK_RETRY_DELAYS
            retry = now + timedelta(seconds=delays[attempts - 1]) if attempts <= len(delays) else None
            Invitation.objects.filter(pk=invitation_id, next_mail_at=lease).update(
                mail_attempts=attempts, next_mail_at=retry
            )
            continue
        Invitation.objects.filter(pk=invitation_id).update(
            mail_token="", mailed_at=timezone.now(), next_mail_at=None, mail_attempts=invitation.mail_attempts + 1
        )
        sent += 1
    return sent


def mail(invitation):
    context = {
        "project": invitation.project,
        "role": invitation.role,
        "inviter": invitation.invited_by,
        "link": link(invitation.mail_token),
        "expires_at": invitation.expires_at,
    }
    subject = f"[HistoryHub] You are invited to {invitation.project.name}"
    message = EmailMultiAlternatives(
        subject, render_to_string("projects/invitation.txt", context), to=[invitation.email]
    )
    message.attach_alternative(render_to_string("projects/invitation.html", context), "text/html")
    with deadlines.Deadline(settings.EMAIL_TIMEOUT) as deadline:
        message.send()
    if deadline.passed:
        raise deadlines.DeadlinePassed(f"the SMTP server did not take the invitation within {settings.EMAIL_TIMEOUT} s")

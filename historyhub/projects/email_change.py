"""A person changes their own email address: the new one takes effect when the link mailed to it is opened
(docs/people.md, "Everyone's own page"). Until then it is pending, shown on the profile page.

The link carries a signed token (``django.core.signing``, salted for this use) naming the person and the new
address, valid for ``VALID``; it works only while that address is still the one pending, so it works once, and
a newer request makes the older link useless. Whether the address belongs to another account is never looked
at, so the answer tells nothing about it.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from historyhub.lib import deadlines
from historyhub.projects.invitations import checked_email
from historyhub.projects.models import PendingEmail

SALT = "historyhub.projects.email_change"
VALID = timedelta(days=2)


class LinkRefused(Exception):
    pass


REFUSED = "This confirmation link does not work: it was used, replaced by a newer one, or has expired."


def request_change(user, email, now=None):
    """Keep ``email`` as ``user``'s pending address and mail the link to it; InvalidInput for a bad address.
    A mail server that refuses raises OSError, and nothing is kept pending."""
    email = checked_email(email)
    now = now or timezone.now()
    token = signing.dumps({"user": user.pk, "email": email}, salt=SALT)
    with transaction.atomic():
        PendingEmail.objects.update_or_create(user=user, defaults={"email": email, "requested_at": now})
        mail(user, email, settings.HISTORYHUB_PUBLIC_URL + reverse("confirm_email", args=[token]))
    return email


def mail(user, email, link):
    context = {"user": user, "email": email, "link": link, "hours": int(VALID.total_seconds() // 3600)}
    message = EmailMultiAlternatives(
        "[HistoryHub] Confirm your new email address",
        render_to_string("projects/email_change.txt", context),
        to=[email],
    )
    with deadlines.Deadline(settings.EMAIL_TIMEOUT) as deadline:
        message.send()
    if deadline.passed:
        raise deadlines.DeadlinePassed(f"the SMTP server did not take the mail within {settings.EMAIL_TIMEOUT} s")


def confirm(token):
    """The person whose address the link changes, changed; LinkRefused if it does not work."""
    try:
        claim = signing.loads(token, salt=SALT, max_age=VALID)
    except signing.BadSignature:
        raise LinkRefused(REFUSED) from None
    with transaction.atomic():
        pending = (
            PendingEmail.objects.select_for_update()
            .filter(user_id=claim.get("user"), email=claim.get("email"))
            .select_related("user")
            .first()
        )
        if pending is None:
            raise LinkRefused(REFUSED)
        user = get_user_model().objects.select_for_update().get(pk=pending.user_id)
        user.email = pending.email
        user.save(update_fields=["email"])
        pending.delete()
    return user

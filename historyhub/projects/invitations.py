"""Invitations: a project admin brings a person in by email with a role (docs/people.md).

An invitation's link carries a token made with ``secrets.token_urlsafe(32)``; only its SHA-256 is kept, so the
database alone opens no invitation. The link goes by email only (``invitation_mail``, sent by the delivery worker
from the database, so an invitation made is never lost to a mail server that was down), never in an answer.
A link works once, for ``VALID`` after it was made, unless revoked first. Accepting makes the person who accepts
(a new account or an existing one, logged in) a member with the invitation's role; an existing member keeps a
higher role they had. Each step is recorded in the audit log.
"""

import hashlib
import secrets
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from ulid import ULID

from historyhub.audit import log as audit_log
from historyhub.lib import validation
from historyhub.lib.errors import InvalidInput, NotFound
from historyhub.lib.wakeups import wake_workers
from historyhub.projects.models import ROLE_GRANTS, Invitation, Membership, Role


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    INVITATION_SENT = "invitation.sent"
    INVITATION_REVOKED = "invitation.revoked"
    INVITATION_ACCEPTED = "invitation.accepted"


VALID = timedelta(days=7)
MAX_EMAIL_LENGTH = 254


def hashed(token):
    return hashlib.sha256(token.encode()).hexdigest()


def checked_email(email):
    """The address, trimmed, if Django's validator takes it; the domain in lower case (it is case-blind)."""
    if not isinstance(email, str) or len(email.strip()) > MAX_EMAIL_LENGTH:
        raise InvalidInput("email must be an email address.")
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise InvalidInput("email must be an email address.") from None
    local, _, domain = email.rpartition("@")
    return f"{local}@{domain.lower()}"


def invite(project, email, role, *, actor, now=None):
    """A new open invitation; the worker mails its link once this transaction commits."""
    email = checked_email(email)
    role = validation.choice(role, Role.values, "role")
    now = now or timezone.now()
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        invitation = Invitation.objects.create(
            id=str(ULID()),
            project=project,
            email=email,
            role=role,
            token_hash=hashed(token),
            invited_by=actor[:200],
            created_at=now,
            expires_at=now + VALID,
            mail_token=token,
            next_mail_at=now,
        )
        audit_log.record(project.pk, actor, Audited.INVITATION_SENT, invitation.pk, email=email, role=role)
        wake_workers()
    return invitation


def open_invitations(project, now=None):
    """The project's invitations not accepted, revoked or expired, newest first."""
    now = now or timezone.now()
    return Invitation.objects.filter(
        project=project, accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
    ).order_by("-created_at", "-id")


def revoke(project, invitation_id, *, actor, now=None):
    """The invitation's link stops working; one of another project, or no longer open, is not found."""
    now = now or timezone.now()
    with transaction.atomic():
        invitation = open_invitations(project, now).select_for_update().filter(pk=invitation_id).first()
        if invitation is None:
            raise NotFound("There is no such open invitation in this project.")
        # The link is not mailed any more if it had not gone yet.
        invitation.revoked_at, invitation.mail_token, invitation.next_mail_at = now, "", None
        invitation.save(update_fields=["revoked_at", "mail_token", "next_mail_at"])
        audit_log.record(project.pk, actor, Audited.INVITATION_REVOKED, invitation.pk, email=invitation.email)
    return invitation


def find_open(token, now=None):
    """The open invitation whose link carries ``token``, or None (unknown, used, revoked or expired alike)."""
    if not isinstance(token, str) or not token or len(token) > 100:
        return None
    now = now or timezone.now()
    return (
        Invitation.objects.select_related("project")
        .filter(token_hash=hashed(token), accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now)
        .first()
    )


def accept(invitation, user, now=None):
    """``user`` takes the invitation: a member of its project with its role (or the higher role they had).
    False when the invitation was taken, revoked or expired meanwhile: a link works once."""
    now = now or timezone.now()
    with transaction.atomic():
        # One conditional UPDATE: of two acceptances at once, one wins.
        taken = Invitation.objects.filter(
            pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
        ).update(accepted_at=now, accepted_by=user, mail_token="", next_mail_at=None)
        if not taken:
            return False
        membership = Membership.objects.select_for_update().filter(project=invitation.project, user=user).first()
        if membership is None:
            Membership.objects.create(project=invitation.project, user=user, role=invitation.role)
            role = invitation.role
        elif invitation.role not in ROLE_GRANTS[Role(membership.role)]:
            membership.role = role = invitation.role
            membership.save(update_fields=["role"])
        else:
            role = membership.role
        audit_log.record(
            invitation.project_id,
            user.get_username(),
            Audited.INVITATION_ACCEPTED,
            invitation.pk,
            email=invitation.email,
            role=role,
        )
    return True

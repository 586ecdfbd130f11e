"""Which HistoryHub person a Slack user acts as, and how that link is made (docs/notifications.md, "Linking a
Slack user").

Linking takes proof, and only proof: a Slack user linked to nobody who clicks a button is shown, by Slack, to
them alone (``chat.postEphemeral``), a one-time link; the person who opens it logged in and confirms becomes the
person that Slack user acts as. What Slack's profile says (an email, a name) links nobody. A token is 32 random
bytes, kept only as its SHA-256, valid for ``LINK_VALID`` and once; a Slack user has at most one pending
request, the newest. A Slack user (workspace and user id) is linked to one person at most, which the database
settles; the person removes the link on their notifications page.
"""

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse

from historyhub.notifications.models import SlackLinkRequest, SlackUserLink

LINK_VALID = timedelta(minutes=10)
NOT_FOUND = (
    "This link is not valid: it was already used, or never issued. Click the button in Slack again for a new one."
)
EXPIRED = "This link has expired (a link is valid for 10 minutes). Click the button in Slack again for a new one."
TAKEN = (
    "This Slack user is already linked to another HistoryHub person, so nothing was linked. "
    "That person can remove the link on their notifications page."
)


class SlackUser(NamedTuple):
    """A Slack user as a signed click names them: their workspace and user ids, and Slack's names for both."""

    team_id: str
    user_id: str
    team_name: str = ""
    user_name: str = ""


class LinkRefused(Exception):
    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message, self.status = message, status


def linked(slack_user: SlackUser) -> SlackUserLink | None:
    return (
        SlackUserLink.objects.select_related("user")
        .filter(team_id=slack_user.team_id, slack_user_id=slack_user.user_id)
        .first()
    )


def offer(slack_user: SlackUser, now: datetime) -> str:
    """A new one-time link for ``slack_user`` (absolute, on the dashboard), replacing any they had before."""
    token = secrets.token_urlsafe(32)
    request = SlackLinkRequest(
        team_id=slack_user.team_id,
        slack_user_id=slack_user.user_id,
        team_name=slack_user.team_name[:200],
        slack_user_name=slack_user.user_name[:200],
        token_hash=hashed(token),
        expires_at=now + LINK_VALID,
    )
    # Two clicks at once each write theirs; the database keeps one request per Slack user, the last written.
    SlackLinkRequest.objects.bulk_create(
        [request],
        update_conflicts=True,
        unique_fields=["team_id", "slack_user_id"],
        update_fields=["team_name", "slack_user_name", "token_hash", "expires_at"],
    )
    return settings.HISTORYHUB_PUBLIC_URL + reverse("slack_link", args=[token])


def pending(token: str, now: datetime) -> SlackLinkRequest:
    """The request ``token`` opens; ``LinkRefused`` when it is unknown, used or expired."""
    request = SlackLinkRequest.objects.filter(token_hash=hashed(token)).first()
    if request is None:
        raise LinkRefused(NOT_FOUND, 404)
    if request.expires_at <= now:
        raise LinkRefused(EXPIRED, 410)
    return request


def confirm(token: str, person, now: datetime) -> SlackUserLink:
    """Link the Slack user of ``token`` to ``person`` and use the token up; ``LinkRefused`` (and nothing changed)
    when the token is not valid now or the Slack user is another person's."""
    with transaction.atomic():
        request = pending(token, now)
        # Used once: of two confirmations at once, the database lets one delete the row.
        if not SlackLinkRequest.objects.filter(pk=request.pk, token_hash=request.token_hash).delete()[0]:
            raise LinkRefused(NOT_FOUND, 404)
        existing = SlackUserLink.objects.filter(team_id=request.team_id, slack_user_id=request.slack_user_id).first()
        if existing is not None:
            if existing.user_id != person.pk:
                raise LinkRefused(TAKEN, 409)
            return existing
        try:
            with transaction.atomic():
                return SlackUserLink.objects.create(
                    user=person,
                    team_id=request.team_id,
                    slack_user_id=request.slack_user_id,
                    team_name=request.team_name,
                    slack_user_name=request.slack_user_name,
                    created_at=now,
                )
        except IntegrityError:
            raise LinkRefused(TAKEN, 409) from None


def owner_of(request: SlackLinkRequest) -> SlackUserLink | None:
    """The link the request's Slack user already has, if any."""
    return linked(SlackUser(request.team_id, request.slack_user_id))


def hashed(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()

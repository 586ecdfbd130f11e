"""A person deactivated (``is_active`` unset, by an operator in /admin/ or anywhere else) is signed out
everywhere at once: their sessions are deleted (docs/people.md, "Deactivating a person").

Django would refuse their session at its next request anyway (an inactive user is no user to the model
backend); deleting the sessions makes that true of every backend and leaves nothing to be revived by making
them active again. Their votes stop counting through ``approvals.eligibility`` and ``approvals.deciders``.
"""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.utils import timezone

WAS_ACTIVE = "_was_active"


def end_sessions(user_id: int) -> int:
    """Delete the unexpired sessions logged in as ``user_id``; how many. Sessions are not indexed by person, so
    each is read: this runs once per deactivation, an operator's act."""
    mine = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if session.get_decoded().get("_auth_user_id") == str(user_id)
    ]
    return Session.objects.filter(pk__in=mine).delete()[0]


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="historyhub.deactivation.before_person_saved")
def _remember(sender: type[User], instance: User, raw: bool = False, **kwargs: Any) -> None:
    if raw or instance.pk is None:
        return
    setattr(instance, WAS_ACTIVE, sender.objects.filter(pk=instance.pk).values_list("is_active", flat=True).first())


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="historyhub.deactivation.person_saved")
def _person_saved(sender: type[User], instance: User, raw: bool = False, **kwargs: Any) -> None:
    was_active = getattr(instance, WAS_ACTIVE, None)
    setattr(instance, WAS_ACTIVE, None)
    if not raw and was_active and not instance.is_active:
        end_sessions(instance.pk)

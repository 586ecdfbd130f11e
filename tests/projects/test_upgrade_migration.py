"""The upgrade to projects keeps every row: sessions, items, client actions and keys land in ``default`` under
the ids they had, and people keep what they could do as roles (docs/projects.md)."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.history import item_log
from historyhub.history.models import ClientAction, Item, Session
from historyhub.projects import access
from historyhub.projects.models import Role
from tests.support.migrations import latest, migrate

BEFORE = [("history", "0008_pop_takes_everything_back"), ("apikeys", "0002_scopes"), ("projects", None)]


@pytest.mark.django_db(transaction=True)
def test_every_row_is_kept_in_the_default_project_and_people_keep_what_they_could_do():
    old = migrate(BEFORE)
    OldSession, OldItem = old.get_model("history", "Session"), old.get_model("history", "Item")
    OldAction, OldKey = old.get_model("history", "ClientAction"), old.get_model("apikeys", "ApiKey")
    OldUser, OldGroup = old.get_model("auth", "User"), old.get_model("auth", "Group")
    now = timezone.now()
    session = OldSession.objects.create(id="support-42", agent="support", next_position=3, item_count=2)
    for position, text in ((1, '{"role": "user", "content": "hi"}'), (2, '{"role": "assistant", "content": "hello"}')):
        OldItem.objects.create(session=session, epoch=0, position=position, received_at=now, data=text)
    OldAction.objects.create(session=session, call_id="c1", name="issue_refund", arguments_json="{}", created_at=now)
    OldKey.objects.create(name="agent", scopes="write,decide", prefix="hh_a", key_hash="a" * 64)
    approvers = OldGroup.objects.get(name="Approvers")
    OldUser.objects.create(username="ana").groups.add(approvers)
    OldUser.objects.create(username="root", is_superuser=True, is_staff=True)
    OldUser.objects.create(username="reader")
    direct = OldUser.objects.create(username="direct")
    # The permission is no longer the model's: a database flushed since holds it no more.
    actions = ContentType.objects.get_for_model(ClientAction)
    permission, _ = Permission.objects.get_or_create(
        codename="decide_clientaction", content_type=actions, defaults={"name": "Can approve or reject client actions"}
    )
    direct.user_permissions.add(permission.pk)

    migrate(latest())

    kept = Session.objects.get(pk="support-42")
    assert (kept.project_id, kept.session_id, kept.item_count) == ("default", "support-42", 2)
    assert [json.loads(text)["content"] for text in item_log.iter_item_texts("support-42")] == ["hi", "hello"]
    assert Item.objects.count() == 2
    assert ClientAction.objects.get(call_id="c1").session_id == "support-42"
    assert ApiKey.objects.get(name="agent").project_id == "default"
    roles = {user.username: access.role_of(user, "default") for user in get_user_model().objects.all()}
    assert roles == {"ana": Role.APPROVER, "root": Role.ADMIN, "reader": Role.VIEWER, "direct": Role.APPROVER}

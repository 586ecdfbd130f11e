from django.contrib.auth.models import User
from django.core.management import call_command

from historyhub.apikeys.models import ApiKey
from historyhub.demo.decided_week import DECIDERS, TEAMMATES
from historyhub.history.models import ClientAction, Item, Session, TimelineEntry
from historyhub.projects import access
from historyhub.projects.models import Membership, Role


def counts():
    return {model.__name__: model.objects.count() for model in (Session, Item, TimelineEntry, ClientAction)}


def test_the_demo_shows_every_feature(db):
    call_command("seed_demo", quiet_credentials=True)
    assert Session.objects.count() >= 20
    assert Session.objects.values("agent").distinct().count() >= 3
    waiting = ClientAction.objects.get(call_id="call_123", status="waiting")
    assert waiting.name == "request_human_approval" and waiting.arguments == {"amount": 750, "currency": "USD"}
    assert Session.objects.filter(parent__isnull=False).exists()
    assert Session.objects.filter(epoch__gt=0).exists()
    assert Session.objects.filter(item_count__gte=500).exists()
    for kind in ("action", "skill", "evaluation", "subagent", "session_completed", "client_action"):
        assert TimelineEntry.objects.filter(type=kind).exists(), kind
    media = {part["type"] for entry in TimelineEntry.objects.filter(type="message") for part in entry.value["content"]}
    assert {"image", "audio", "file"} <= media


def test_running_it_twice_duplicates_nothing(db):
    call_command("seed_demo", quiet_credentials=True)
    first = counts()
    call_command("seed_demo", quiet_credentials=True)
    assert counts() == first
    assert User.objects.filter(username="demo").count() == 1
    assert ApiKey.objects.filter(name__startswith="demo key").count() == 1


def test_the_demo_login_is_an_admin_of_the_default_project(db):
    call_command("seed_demo", quiet_credentials=True)
    assert access.role_of(User.objects.get(username="demo"), "default") == Role.ADMIN
    assert Membership.objects.filter(user__username="demo", project_id="default", role=Role.ADMIN).exists()


def test_the_demo_deciders_are_members_and_only_the_demo_login_has_a_password(db):
    call_command("seed_demo", quiet_credentials=True)
    call_command("seed_demo", quiet_credentials=True)
    for username in TEAMMATES:
        teammate = User.objects.get(username=username)
        assert access.role_of(teammate, "default") == Role.APPROVER
        assert not teammate.has_usable_password()
    deciders = set(ClientAction.objects.exclude(resolved_by="").values_list("resolved_by", flat=True))
    assert deciders == set(DECIDERS)


def printed_key(capsys):
    out = capsys.readouterr().out
    return next(line.split()[-1] for line in out.splitlines() if "Demo API key:" in line)


def test_in_development_the_demo_key_is_kept_across_runs(db, settings, tmp_path, capsys):
    settings.DEBUG, settings.DATA_DIR = True, tmp_path
    call_command("seed_demo")
    first = printed_key(capsys)
    call_command("seed_demo")
    assert printed_key(capsys) == first
    assert ApiKey.authenticate(first) is not None
    assert (tmp_path / "demo-api-key").stat().st_mode & 0o777 == 0o600
    # A key revoked in the meantime is replaced, not printed again.
    ApiKey.objects.get(name__startswith="demo key").revoke()
    call_command("seed_demo")
    assert printed_key(capsys) != first


def test_without_debug_the_demo_key_is_made_anew_and_kept_nowhere(db, settings, tmp_path, capsys):
    settings.DEBUG, settings.DATA_DIR = False, tmp_path
    call_command("seed_demo")
    first = printed_key(capsys)
    call_command("seed_demo")
    assert printed_key(capsys) != first and ApiKey.authenticate(first) is None
    assert not (tmp_path / "demo-api-key").exists()

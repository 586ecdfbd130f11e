"""A policy that nobody can satisfy is refused, and so is a change of members, roles or groups that would leave
one so; a waiting action nobody may decide any more is flagged on its card and announced once to the project's
admins as client_action.undecidable (docs/api.md, "Who may decide: approval policies")."""

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import eligibility, escalation, policies
from historyhub.approvals.models import Policy
from historyhub.audit.models import AuditEntry
from historyhub.history.models import ClientAction
from historyhub.lib.errors import DecisionNotAllowed
from historyhub.notifications.delivery_worker import Worker
from historyhub.notifications.models import Delivery
from historyhub.projects import administration
from historyhub.projects.models import Group, Membership, Project, Role
from tests.support.actors import ApiClient, make_member
from tests.support.html import parse
from tests.support.readers import assert_error
from tests.support.waiting import until

PROJECTS = ["default", "acme"]
FOUR_EYES = {"name": "four eyes", "actions": ["pay_*"], "approverGroups": ["finance"], "requiredApprovals": 2}
UNDECIDABLE = "client_action.undecidable"


def four_eyes(**changes):
    return {**FOUR_EYES, "peopleOnly": True, **changes}


@pytest.fixture(params=PROJECTS)
def project(request, db):
    return Project.objects.get_or_create(id=request.param, defaults={"name": request.param.capitalize()})[0]


@pytest.fixture
def admin_api(project):
    return ApiClient(ApiKey.issue("project as code", "admin", project=project)[1])


@pytest.fixture
def agent_api(project):
    return ApiClient(ApiKey.issue("agent", "write", project=project)[1])


def member(username, role, project, **fields):
    user = make_member(username, role, project.pk)
    if fields:
        User.objects.filter(pk=user.pk).update(**fields)
        user.refresh_from_db()
    return user


def group(project, name, people):
    made = Group.objects.create(project=project, name=name)
    made.members.set(people)
    return made


def members_of(project, name):
    return sorted(Group.objects.get(project=project, name=name).members.values_list("username", flat=True))


@pytest.fixture
def finance(project):
    """four eyes, people only: two approvers of finance, ada and bob, exactly the two it needs."""
    made = group(project, "finance", [member("ada", Role.APPROVER, project), member("bob", Role.APPROVER, project)])
    member("cy", Role.APPROVER, project)
    return made


@pytest.fixture
def policy(admin_api, finance):
    answer = admin_api.put("policies", {"items": [four_eyes()]})
    assert answer.status_code == 200, answer.content
    return answer.json()["items"][0]


# Saving a policy ---------------------------------------------------------------------------------


def test_a_people_only_policy_whose_group_is_empty_is_refused_naming_it(project, admin_api):
    group(project, "finance", [])
    assert admin_api.put("policies", {"items": [{"name": "anything", "actions": ["read_*"]}]}).status_code == 200

    refused = admin_api.put("policies", {"items": [four_eyes(requiredApprovals=1)]})

    assert assert_error(refused, 400, "invalid_input") == (
        "The policy 'four eyes' needs an approval from people, and nobody may decide under it (active members of "
        "finance with the approver or admin role); add people to its groups first."
    )
    assert [item["name"] for item in admin_api.get("policies").json()["items"]] == ["anything"]


def test_viewers_and_inactive_people_in_the_group_do_not_count(project, admin_api):
    group(
        project,
        "finance",
        [
            member("ada", Role.APPROVER, project),
            member("vic", Role.VIEWER, project),
            member("ina", Role.APPROVER, project, is_active=False),
        ],
    )

    refused = admin_api.put("policies", {"items": [four_eyes()]})

    assert "and 1 person may decide under it" in assert_error(refused, 400, "invalid_input")
    assert admin_api.get("policies").json()["items"] == []


def test_exactly_as_many_people_as_it_needs_is_enough(project, admin_api):
    group(project, "finance", [member("ada", Role.APPROVER, project), member("bo", Role.ADMIN, project)])

    answer = admin_api.put("policies", {"items": [four_eyes()]})

    assert answer.status_code == 200, answer.content
    assert answer.json()["items"][0]["requiredApprovals"] == 2
    assert "and 2 people may decide" in assert_error(
        admin_api.put("policies", {"items": [four_eyes(requiredApprovals=3)]}), 400, "invalid_input"
    )


def test_a_superuser_in_the_group_counts_as_an_admin_of_every_project(project, admin_api):
    root = User.objects.create_superuser("root", password="root-password-1")
    group(project, "finance", [member("ada", Role.APPROVER, project), root])

    assert admin_api.put("policies", {"items": [four_eyes()]}).status_code == 200


def test_no_groups_means_every_approver_of_the_project(project, admin_api):
    member("ada", Role.APPROVER, project)
    member("vic", Role.VIEWER, project)
    everyone = four_eyes(approverGroups=[])

    refused = admin_api.put("policies", {"items": [everyone]})
    assert "(active people of the project with the approver or admin role)" in assert_error(
        refused, 400, "invalid_input"
    )

    member("bo", Role.ADMIN, project)
    assert admin_api.put("policies", {"items": [everyone]}).status_code == 200


def test_a_policy_keys_may_decide_under_needs_no_people(project, admin_api):
    group(project, "finance", [])

    answer = admin_api.put("policies", {"items": [{**FOUR_EYES, "peopleOnly": False}]})

    assert answer.status_code == 200, answer.content


def test_the_policies_page_refuses_it_and_says_why(project, finance):
    admin = member("adm", Role.ADMIN, project)
    User.objects.filter(pk=admin.pk).update(email="adm@example.com")
    client = logged_in_for_real("adm")
    url = reverse("dashboard:policies", args=[project.pk])
    form = parse(client.get(url)).one("#policy-form form").submitted()
    typed = {**form, "name": ["four eyes"], "actions": ["pay_*"], "approverGroups": ["finance"]}

    refused = client.post(url, {**typed, "requiredApprovals": ["3"], "peopleOnly": ["on"]})

    assert refused.status_code == 422
    assert "The policy 'four eyes' needs 3 approvals from people, and 2 people may decide under it" in parse(
        refused
    ).text("#policy-form")
    assert client.post(url, {**typed, "requiredApprovals": ["2"], "peopleOnly": ["on"]}).status_code == 302


def test_the_admin_refuses_a_policy_nobody_can_satisfy(admin_client):
    Group.objects.create(project_id="default", name="finance")
    form = {
        "project": "default",
        "position": 0,
        "name": "four eyes",
        "agents_json": '["*"]',
        "actions_json": '["pay_*"]',
        "when_json": "[]",
        "approver_groups_json": '["finance"]',
        "escalate_to_json": "[]",
        "required_approvals": 2,
        "people_only": "on",
    }

    refused = admin_client.post(reverse("admin:approvals_policy_add"), form)

    assert refused.status_code == 200
    assert "The policy 'four eyes' needs 2 approvals from people, and nobody may decide under it" in parse(
        refused
    ).text(".errornote + ul, .errorlist.nonfield")
    assert not Policy.objects.exists()


# Changing who may decide -------------------------------------------------------------------------


def test_taking_a_member_out_of_the_group_over_the_api_is_refused_naming_the_policy(project, admin_api, policy):
    audited = AuditEntry.objects.count()

    refused = admin_api.put("groups/finance", {"members": ["ada"]})

    assert assert_error(refused, 409, "decision_not_allowed") == (
        "The policy 'four eyes' needs 2 approvals from people, and 1 person could decide under it after this change "
        "(active members of finance with the approver or admin role); nothing was changed."
    )
    assert members_of(project, "finance") == ["ada", "bob"] and AuditEntry.objects.count() == audited
    # Adding people, or swapping one for another, keeps the policy satisfiable.
    assert admin_api.put("groups/finance", {"members": ["ada", "bob", "cy"]}).status_code == 200
    assert admin_api.put("groups/finance", {"members": ["ada", "cy"]}).status_code == 200
    assert members_of(project, "finance") == ["ada", "cy"]


def test_deleting_the_group_over_the_api_is_refused_naming_the_policy(project, admin_api, policy):
    refused = admin_api.delete("groups/finance")

    assert "'four eyes'" in assert_error(refused, 409, "decision_not_allowed")
    assert members_of(project, "finance") == ["ada", "bob"]


def logged_in_for_real(username):
    """A browser-like client that logged in on the login page with the person's password, CSRF enforced."""
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("login"))
    answer = client.post(
        reverse("login"),
        {
            "username": username,
            "password": f"{username}-password-1",
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert answer.status_code == 302, answer.content
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


@pytest.mark.parametrize(
    "change",
    [
        {"action": "member", "username": "bob", "role": "viewer"},
        {"action": "remove_member", "username": "bob"},
        {"action": "group", "name": "finance", "members": "ada"},
        {"action": "delete_group", "name": "finance"},
    ],
    ids=["demoted to viewer", "removed", "taken out of the group", "group deleted"],
)
def test_the_settings_page_refuses_a_change_that_would_break_a_policy_and_shows_why(project, policy, change):
    member("adm", Role.ADMIN, project)
    client = logged_in_for_real("adm")
    url = reverse("dashboard:settings", args=[project.pk])
    client.get(url)

    refused = client.post(url, change)

    assert refused.status_code == 422
    assert "The policy 'four eyes'" in parse(refused).text("[role=alert], .errorlist")
    assert members_of(project, "finance") == ["ada", "bob"]
    assert Membership.objects.get(project=project, user__username="bob").role == Role.APPROVER


def test_the_admin_refuses_it_too_and_shows_why(project, policy):
    operator = Client()
    operator.force_login(User.objects.create_superuser("root", password="root-password-1"))
    ada = User.objects.get(username="ada")
    change = reverse("admin:projects_group_change", args=[Group.objects.get(project=project, name="finance").pk])
    form = parse(operator.get(change)).one("form#group_form").submitted()

    refused = operator.post(change, {**form, "members": [ada.pk]}, follow=True)

    assert "The policy 'four eyes' needs 2 approvals from people" in parse(refused).text(".messagelist")
    assert members_of(project, "finance") == ["ada", "bob"]


# Actions nobody may decide any more ---------------------------------------------------------------


@pytest.fixture
def admins_told(project, admin_api, settings):
    """An email channel of the project wanting client_action.undecidable, and an admin with an address."""
    settings.NOTIFICATIONS_SEND_THREADS = 1
    admin = member("adm", Role.ADMIN, project)
    User.objects.filter(pk=admin.pk).update(email="adm@example.com")
    answer = admin_api.post("channels", {"kind": "email", "name": "admins", "events": [UNDECIDABLE]})
    assert answer.status_code == 201, answer.content
    return answer.json()


def open_action(agent_api, call_id, name):
    body = {"callId": call_id, "name": name, "arguments": {"amount": 100}}
    answer = agent_api.post("sessions/s1/client-actions", body)
    assert answer.status_code == 201, answer.content
    return answer.json()


def deactivated_on_the_admin_site(username):
    """An operator unticks Active on the person's admin page and saves."""
    operator = Client()
    operator.force_login(
        User.objects.get_or_create(username="root", defaults={"is_superuser": True, "is_staff": True})[0]
    )
    person = User.objects.get(username=username)
    change = reverse("admin:auth_user_change", args=[person.pk])
    form = parse(operator.get(change)).one("form#user_form").submitted()
    form.pop("is_active", None)
    answer = operator.post(change, form)
    assert answer.status_code == 302, parse(answer).text(".errorlist")


def card_notice(project):
    page = Client()
    page.force_login(User.objects.get(username="adm"))
    session = parse(page.get(reverse("dashboard:session", args=[project.pk, "s1"])))
    return [notice.text() for notice in session.all(".undecidable")]


def test_deactivating_a_person_flags_the_action_nobody_may_decide_and_announces_it_once(
    project, agent_api, policy, admins_told
):
    assert agent_api.post("sessions", {"sessionId": "s1", "agent": "support"}).status_code == 201
    open_action(agent_api, "p1", "pay_vendor")
    open_action(agent_api, "r1", "read_invoice")  # governed by no policy: anyone may decide it

    deactivated_on_the_admin_site("bob")

    assert not User.objects.get(username="bob").is_active  # an operator's act is never refused
    assert card_notice(project) == [
        "Nobody can decide this action any more: the policy 'four eyes' needs 2 approvals from people, and fewer "
        "than 2 people may decide under it (active members of finance with the approver or admin role). A project "
        "admin can add people to its groups."
    ]
    assert agent_api.get("sessions/s1/client-actions/p1").json()["status"] == "waiting"
    deliveries = Delivery.objects.filter(channel_id=admins_told["channelId"])
    assert list(deliveries.values_list("event", flat=True)) == [UNDECIDABLE]
    assert deliveries.get().payload["data"]["callId"] == "p1"

    ada = User.objects.get(username="ada")
    ada.is_active = False
    ada.save()

    assert deliveries.count() == 1
    Worker().deliver_due()
    assert [(message.to, message.subject) for message in mail.outbox] == [
        (["adm@example.com"], "[HistoryHub] support: pay_vendor can no longer be decided by anyone")
    ]


def test_an_action_decidable_again_loses_its_flag(project, agent_api, admin_api, policy, admins_told):
    assert agent_api.post("sessions", {"sessionId": "s1", "agent": "support"}).status_code == 201
    open_action(agent_api, "p1", "pay_vendor")
    deactivated_on_the_admin_site("bob")
    assert ClientAction.objects.get(call_id="p1").undecidable_at is not None

    assert admin_api.put("groups/finance", {"members": ["ada", "cy"]}).status_code == 200

    assert ClientAction.objects.get(call_id="p1").undecidable_at is None
    assert card_notice(project) == []
    assert Delivery.objects.filter(event=UNDECIDABLE).count() == 1


# Two changes at once -------------------------------------------------------------------------------


def in_thread(work):
    """``work`` on a connection of its own, as another server worker would."""

    def run():
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def waiting_for_a_lock():
    with connection.cursor() as cursor:
        # Inside a transaction the statistics views keep their first reading unless told to read again.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_two_changes_at_once_cannot_together_break_a_policy_each_alone_leaves_whole():
    if connection.vendor != "postgresql":
        pytest.skip("row locks between concurrent transactions: PostgreSQL")
    project = Project.objects.get(pk="default")
    group(project, "finance", [member(name, Role.APPROVER, project) for name in ("ada", "bob", "cy")])
    policies.replace(project.pk, [four_eyes()], actor="setup")
    outcomes = {}

    def demoting(username):
        def work():
            try:
                administration.set_member(project, username, Role.VIEWER, actor="tests")
                outcomes[username] = "saved"
            except DecisionNotAllowed:
                outcomes[username] = "refused"

        return work

    # Both changes start while the project's turn is held, so each would count three people if nothing made
    # them take turns: each alone leaves two, which is enough; together they would leave one.
    with transaction.atomic():
        eligibility.turn(project.pk)
        threads = [in_thread(demoting("bob")), in_thread(demoting("cy"))]
        until(lambda: waiting_for_a_lock() == 2, message="both changes waiting for the project's turn")
    for thread in threads:
        thread.join(30)

    assert sorted(outcomes.values()) == ["refused", "saved"]
    assert Membership.objects.filter(project=project, role=Role.APPROVER).count() == 2


def test_an_escalation_to_groups_that_may_decide_lifts_the_flag(project, agent_api, admin_api, finance, admins_told):
    group(project, "managers", [member("dee", Role.APPROVER, project), member("eve", Role.ADMIN, project)])
    escalating = four_eyes(escalateAfterSeconds=60, escalateTo=["managers"])
    assert admin_api.put("policies", {"items": [escalating]}).status_code == 200
    assert agent_api.post("sessions", {"sessionId": "s1", "agent": "support"}).status_code == 201
    open_action(agent_api, "p1", "pay_vendor")
    bob = User.objects.get(username="bob")
    bob.is_active = False
    bob.save()
    action = ClientAction.objects.get(call_id="p1")
    assert action.undecidable_at is not None and len(card_notice(project)) == 1

    assert escalation.sweep_escalations(now=action.created_at + timedelta(seconds=61)) == 1

    assert ClientAction.objects.get(call_id="p1").undecidable_at is None
    assert card_notice(project) == []

"""A decider is a person or a key, never a label, and a vote counts while its decider may decide (docs/api.md, "Who
may decide: approval policies"): one person supplies at most one of N approvals whatever channels (the dashboard,
the admin) and keys (one they made on the settings page) they hold; a key an operator made counts as itself; a vote
by someone who left the policy's groups, lost the approver role or was deactivated, or by a key since revoked, no
longer counts, and the card strikes it through with why. Mostly in a project other than ``default``."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import escalation
from historyhub.approvals.models import Vote
from historyhub.history.dialects.base import parse_timestamp
from historyhub.history.models import ClientAction
from historyhub.projects.models import Group, Project, Role
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.html import parse
from tests.support.readers import assert_error

PROJECT = "acme"
SESSION = "refunds-7"
TWO_FROM_FINANCE = {"name": "Two from finance", "approverGroups": ["finance"], "requiredApprovals": 2}


@pytest.fixture
def acme(db):
    """The project acme: ada (its admin) and bob and cy (approvers), ada and bob in finance, a policy asking two of
    finance, and a session waiting on one refund opened through the API."""
    Project.objects.create(id=PROJECT, name="Acme")
    people = {
        "ada": make_member("ada", Role.ADMIN, PROJECT),
        "bob": make_member("bob", Role.APPROVER, PROJECT),
        "cy": make_member("cy", Role.APPROVER, PROJECT),
    }
    admin = ApiClient(ApiKey.issue("acme admin", "admin", project=PROJECT)[1])
    assert admin.put("groups/finance", {"members": ["ada", "bob"]}).status_code == 200
    assert admin.put("policies", {"items": [TWO_FROM_FINANCE]}).status_code == 200
    agent = ApiClient(ApiKey.issue("acme agent", "write", project=PROJECT)[1])
    assert agent.post("sessions", {"sessionId": SESSION, "agent": "support"}).status_code == 201
    opened = agent.post(
        f"sessions/{SESSION}/client-actions", {"callId": "r1", "name": "issue_refund", "arguments": {"amount": 900}}
    )
    assert opened.status_code == 201
    return {"people": people, "admin": admin, "agent": agent}


def action(api):
    return api.get(f"sessions/{SESSION}/client-actions/r1").json()


def approve_on_dashboard(user, decision="approve", **fields):
    url = reverse("dashboard:decide_action", args=[PROJECT, SESSION, "r1"])
    return post(logged_in(user), url, {"decision": decision, **fields}, project=PROJECT)


def key_made_on_settings_page(user, scopes="decide"):
    """A key ``user`` makes on the project's settings page, as a browser does; the key in clear."""
    url = reverse("dashboard:settings", args=[PROJECT])
    answer = post(
        logged_in(user), url, {"action": "key", "name": f"{user.username} bot", "scopes": [scopes]}, project=PROJECT
    )
    assert answer.status_code == 200, answer.content
    return parse(answer).text("#new-key")


def decide_with(key, decision="approve", **fields):
    return ApiClient(key).post(f"sessions/{SESSION}/client-actions/r1/decision", {"decision": decision, **fields})


def test_a_dashboard_vote_and_a_vote_by_a_key_the_person_made_are_one_approval(acme):
    ada, bob = acme["people"]["ada"], acme["people"]["bob"]
    key = key_made_on_settings_page(ada)
    assert ApiKey.authenticate(key).created_by == ada

    assert approve_on_dashboard(ada).status_code == 302
    again = decide_with(key)
    assert again.status_code == 200
    assert (again.json()["status"], again.json()["approvalsNeeded"], len(again.json()["votes"])) == ("waiting", 1, 1)
    assert_error(decide_with(key, "reject"), 409, "decision_not_allowed", "You have already decided on this action.")
    assert_error(
        decide_with(key, arguments={"amount": 900, "note": "x"}),
        409,
        "decision_not_allowed",
        "You have already decided on this action.",
    )
    waiting = action(acme["agent"])
    assert (waiting["status"], waiting["approvalsNeeded"]) == ("waiting", 1)
    assert [(vote["by"], vote["via"], vote["counts"]) for vote in waiting["votes"]] == [("ada", "dashboard", True)]

    assert approve_on_dashboard(bob).status_code == 302
    assert action(acme["agent"])["status"] == "approved"


def test_a_key_the_person_made_votes_first_and_their_dashboard_vote_is_the_same_decider(acme):
    ada = acme["people"]["ada"]
    key = key_made_on_settings_page(ada)
    assert decide_with(key).json()["votes"][0]["via"] == "api"

    refused = approve_on_dashboard(ada, "reject")
    assert refused.status_code == 409
    assert "You have already decided on this action." in refused.content.decode()
    waiting = action(acme["agent"])
    assert (waiting["status"], waiting["approvalsNeeded"], len(waiting["votes"])) == ("waiting", 1, 1)
    assert Vote.objects.get().user == ada


def test_a_key_an_operator_made_counts_as_itself(acme):
    out = StringIO()
    call_command("createapikey", "acme approvals bot", "--scope", "decide", "--project", PROJECT, stdout=out)
    key = out.getvalue().strip()
    assert ApiKey.authenticate(key).created_by is None

    assert approve_on_dashboard(acme["people"]["ada"]).status_code == 302
    approved = decide_with(key).json()
    assert approved["status"] == "approved"
    assert [(vote["by"], vote["via"]) for vote in approved["votes"]] == [
        ("ada", "dashboard"),
        ("api key: acme approvals bot", "api"),
    ]


def test_a_superuser_in_the_group_voting_in_the_admin_and_on_the_dashboard_is_one_decider(acme):
    root = User.objects.create_superuser("root", password="root-password-1")
    # Superusers are admins of every project, so they may be members of its groups without a membership.
    assert acme["admin"].put("groups/finance", {"members": ["ada", "bob", "root"]}).status_code == 200
    selected = ClientAction.objects.filter(call_id="r1").values_list("pk", flat=True)
    operator = logged_in(root)
    answer = operator.post(
        "/admin/history/clientaction/",
        {"action": "approve", "_selected_action": list(selected)},
        headers={"X-CSRFToken": csrf_of_admin(operator)},
    )
    assert answer.status_code == 302

    assert approve_on_dashboard(root).status_code == 302
    assert approve_on_dashboard(root, "reject").status_code == 409
    waiting = action(acme["agent"])
    assert (waiting["status"], waiting["approvalsNeeded"]) == ("waiting", 1)
    assert [(vote["by"], vote["via"], vote["decision"]) for vote in waiting["votes"]] == [("root", "admin", "approve")]


def csrf_of_admin(client):
    client.get("/admin/history/clientaction/")
    return client.cookies["csrftoken"].value


def test_the_database_keeps_one_vote_per_person_and_per_key(acme):
    ada = acme["people"]["ada"]
    approve_on_dashboard(ada)
    vote = Vote.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Vote.objects.create(action=vote.action, by="slack: ada", user=ada, via="slack", decision="approve", at=vote.at)
    api_key = ApiKey.issue("acme bot", "decide", project=PROJECT)[0]
    Vote.objects.create(
        action=vote.action, by="api key: acme bot", api_key=api_key, via="api", decision="approve", at=vote.at
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Vote.objects.create(
            action=vote.action, by="api key: b", api_key=api_key, via="api", decision="approve", at=vote.at
        )


# A vote counts while its decider may decide -------------------------------------------------------------------


def struck(user):
    page = parse(logged_in(user).get(reverse("dashboard:approvals", args=[PROJECT])))
    session_page = parse(logged_in(user).get(reverse("dashboard:session", args=[PROJECT, SESSION])))
    return [element.text() for element in page.all(".struck-vote")], [
        element.text() for element in session_page.all(".entry-client_action .struck-vote")
    ]


def test_a_vote_by_someone_who_left_the_policys_group_no_longer_counts(acme):
    ada, bob, cy = (acme["people"][name] for name in ("ada", "bob", "cy"))
    approve_on_dashboard(ada)
    assert action(acme["agent"])["approvalsNeeded"] == 1

    assert acme["admin"].put("groups/finance", {"members": ["bob", "cy"]}).status_code == 200

    waiting = action(acme["agent"])
    assert waiting["approvalsNeeded"] == 2
    why = 'The policy "Two from finance" lets only members of finance decide this action.'
    assert [(vote["by"], vote["counts"], vote["why"]) for vote in waiting["votes"]] == [("ada", False, why)]
    on_inbox, on_timeline = struck(bob)
    assert len(on_inbox) == 1 and on_inbox[0].startswith("ada, ") and why in on_inbox[0]
    assert on_timeline == on_inbox
    page = parse(logged_in(bob).get(reverse("dashboard:approvals", args=[PROJECT])))
    assert "0 of 2 approvals" in page.text(".approval .votes")

    approve_on_dashboard(bob)
    assert action(acme["agent"])["status"] == "waiting"
    approve_on_dashboard(cy)
    approved = action(acme["agent"])
    assert (approved["status"], approved["approvalsNeeded"], approved["resolvedBy"]) == ("approved", 0, "cy")


def test_a_vote_by_someone_demoted_to_viewer_no_longer_counts(acme):
    ada, bob = acme["people"]["ada"], acme["people"]["bob"]
    approve_on_dashboard(bob)
    settings = reverse("dashboard:settings", args=[PROJECT])
    assert (
        post(
            logged_in(ada), settings, {"action": "member", "username": "bob", "role": "viewer"}, project=PROJECT
        ).status_code
        == 302
    )

    waiting = action(acme["agent"])
    assert waiting["approvalsNeeded"] == 2 and waiting["votes"][0]["counts"] is False
    assert "approver or admin role" in waiting["votes"][0]["why"]
    approve_on_dashboard(ada)
    assert action(acme["agent"])["status"] == "waiting"


def test_a_vote_by_someone_deactivated_no_longer_counts(acme):
    ada, bob = acme["people"]["ada"], acme["people"]["bob"]
    approve_on_dashboard(bob)
    User.objects.filter(username="bob").update(is_active=False)

    waiting = action(acme["agent"])
    assert (waiting["approvalsNeeded"], waiting["votes"][0]["why"]) == (2, "The person's account was deactivated.")
    approve_on_dashboard(ada)
    assert action(acme["agent"])["status"] == "waiting"


def test_a_vote_by_a_key_since_revoked_no_longer_counts(acme):
    ada = acme["people"]["ada"]
    api_key, key = ApiKey.issue("acme bot", "decide", project=PROJECT)
    assert decide_with(key).status_code == 200
    settings = reverse("dashboard:settings", args=[PROJECT])
    assert (
        post(logged_in(ada), settings, {"action": "revoke_key", "key": str(api_key.pk)}, project=PROJECT).status_code
        == 302
    )

    waiting = action(acme["agent"])
    assert (waiting["approvalsNeeded"], waiting["votes"][0]["counts"], waiting["votes"][0]["why"]) == (
        2,
        False,
        "The key was revoked.",
    )
    approve_on_dashboard(ada)
    assert action(acme["agent"])["status"] == "waiting"
    assert struck(ada)[0][0].startswith("api key: acme bot, ")


def test_the_list_of_actions_judges_the_votes_too(acme):
    approve_on_dashboard(acme["people"]["bob"])
    User.objects.filter(username="bob").update(is_active=False)

    listed = acme["agent"].get("client-actions", status="waiting").json()["items"]
    assert [(item["approvalsNeeded"], item["votes"][0]["counts"]) for item in listed] == [(2, False)]


def test_a_superuser_may_be_a_member_of_any_projects_groups_and_a_deactivated_one_may_not(acme):
    User.objects.create_superuser("root", password="root-password-1")
    User.objects.create_superuser("gone", password="gone-password-1", is_active=False)

    assert acme["admin"].put("groups/audit", {"members": ["root"]}).json() == {"name": "audit", "members": ["root"]}
    refused = acme["admin"].put("groups/audit", {"members": ["root", "gone"]})
    assert_error(refused, 400, "invalid_input", "'gone' is not a member of this project.")

    operator = logged_in(User.objects.get(username="root"))
    added = operator.post(
        "/admin/projects/group/add/",
        {"project": PROJECT, "name": "legal", "members": [User.objects.get(username="root").pk]},
        headers={"X-CSRFToken": csrf_of_admin(operator)},
    )
    assert added.status_code == 302, parse(added).text(".errornote, .errorlist")
    assert list(Group.objects.get(project_id=PROJECT, name="legal").members.values_list("username", flat=True)) == [
        "root"
    ]


def test_once_escalated_a_vote_by_a_member_of_the_escalation_group_counts_while_they_stay_in_it(acme):
    admin, agent = acme["admin"], acme["agent"]
    assert admin.put("groups/support", {"members": ["cy"]}).status_code == 200
    escalating = {**TWO_FROM_FINANCE, "escalateAfterSeconds": 60, "escalateTo": ["support"]}
    assert admin.put("policies", {"items": [escalating]}).status_code == 200
    body = {"callId": "r2", "name": "issue_refund", "arguments": {"amount": 900}}
    opened = agent.post(f"sessions/{SESSION}/client-actions", body).json()
    assert escalation.sweep_escalations(now=parse_timestamp(opened["createdAt"]) + timedelta(seconds=61)) == 1
    url = reverse("dashboard:decide_action", args=[PROJECT, SESSION, "r2"])
    assert post(logged_in(acme["people"]["cy"]), url, {"decision": "approve"}, project=PROJECT).status_code == 302
    assert agent.get(f"sessions/{SESSION}/client-actions/r2").json()["approvalsNeeded"] == 1

    assert admin.put("groups/support", {"members": []}).status_code == 200

    vote = agent.get(f"sessions/{SESSION}/client-actions/r2").json()["votes"][0]
    assert (vote["counts"], vote["why"]) == (
        False,
        'The policy "Two from finance" lets only members of finance, support decide this action.',
    )

"""Projects on the dashboard: a person sees and decides in the projects they are a member of, each page shows
one project, and a session id of one project is unknown in another (docs/projects.md, "The dashboard")."""

import pytest
from django.test import Client
from django.urls import reverse

from historyhub.history import client_actions, item_log, sessions
from historyhub.lib import session_keys
from historyhub.projects import administration
from historyhub.projects.models import Role
from tests.support.actors import make_member, post
from tests.support.html import parse
from tests.support.readers import decision_url


def support_session(project):
    """Each project holds a session ``support-42`` waiting on an action named after the project."""
    sessions.ensure(agent="support", project=project, session_id="support-42", name=f"{project} conversation")
    key = session_keys.session_key(project, "support-42")
    item_log.append(key, [{"type": "message", "role": "user", "content": f"A {project} customer's words."}])
    client_actions.open_action(key, call_id="c1", name=f"{project}_refund", arguments={"amount": 10})
    return key


@pytest.fixture
def two_projects(db):
    administration.create_project("finance", "Finance")
    return support_session("default"), support_session("finance")


def logged_in(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.fixture
def finance_approver(two_projects):
    return logged_in(make_member("fiona", Role.APPROVER, project="finance"))


def test_a_member_of_one_project_sees_its_sessions_and_actions_only(finance_approver):
    listing = parse(finance_approver.get(reverse("dashboard:sessions", args=["finance"])))
    assert "finance conversation" in listing.text("main") and "default conversation" not in listing.text("main")
    page = finance_approver.get(reverse("dashboard:session", args=["finance", "support-42"]))
    assert page.status_code == 200 and "A finance customer's words." in parse(page).text("main")
    assert "A default customer's words." not in parse(page).text("main")
    inbox = parse(finance_approver.get(reverse("dashboard:approvals", args=["finance"]))).text("main")
    assert "finance_refund" in inbox and "default_refund" not in inbox
    searched = finance_approver.get(reverse("dashboard:sessions", args=["finance"]), {"q": "customer"})
    assert "default conversation" not in searched.content.decode()


def test_another_projects_pages_say_only_that_the_person_is_not_a_member(finance_approver):
    for project in ("default", "no-such-project"):
        for url in (
            reverse("dashboard:sessions", args=[project]),
            reverse("dashboard:session", args=[project, "support-42"]),
            reverse("dashboard:approvals", args=[project]),
        ):
            response = finance_approver.get(url)
            assert response.status_code == 403, url
            assert "You are not a member of this project." in parse(response).text("main")


def test_a_decision_posted_to_another_project_changes_nothing(finance_approver, two_projects):
    default_key, finance_key = two_projects
    response = post(finance_approver, decision_url("support-42", "c1"), {"decision": "approve"})
    assert response.status_code == 403
    selected = post(
        finance_approver,
        reverse("dashboard:decide_selected", args=["default"]),
        {"selected": "support-42/c1", "decision": "approve"},
    )
    assert selected.status_code == 403
    assert client_actions.get(default_key, "c1").status == "waiting"
    assert client_actions.get(finance_key, "c1").status == "waiting"


def test_a_viewer_of_a_project_reads_but_may_not_decide_there(two_projects):
    client = logged_in(make_member("victor", Role.VIEWER, project="finance"))
    assert client.get(reverse("dashboard:session", args=["finance", "support-42"])).status_code == 200
    url = reverse("dashboard:decide_selected", args=["finance"])
    assert post(client, url, {"selected": "support-42/c1", "decision": "approve"}).status_code == 403
    assert client_actions.get(two_projects[1], "c1").status == "waiting"


def test_the_live_stream_of_another_project_is_refused(finance_approver):
    assert finance_approver.get(reverse("dashboard:live", args=["default"])).status_code == 204


def test_the_project_switcher_lists_the_persons_projects(two_projects):
    user = make_member("both", Role.VIEWER, project="finance")
    administration.set_member(administration.Project.objects.get(pk="default"), "both", Role.APPROVER, actor="tests")
    page = parse(logged_in(user).get(reverse("dashboard:sessions", args=["finance"])))
    switcher = page.text("header")
    assert "Finance" in switcher and "Default" in switcher

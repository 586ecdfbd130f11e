"""Two projects in one installation, in a browser: a person of both switches between them, and each project's
pages show its own sessions only (docs/projects.md, "The dashboard")."""

import pytest
from playwright.sync_api import expect

from historyhub.history import item_log, sessions
from historyhub.lib import session_keys
from historyhub.projects import administration
from historyhub.projects.models import Role
from tests.support.actors import make_member

pytestmark = pytest.mark.browser


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"{username}-password-1")
    page.get_by_role("button", name="Log in").click()


def test_a_person_in_two_projects_switches_between_them_and_never_sees_a_third(page, db):
    for project, customer in (("default", "Ingrid"), ("finance", "Farid"), ("secret", "Sasha")):
        if project != "default":
            administration.create_project(project, project.capitalize())
        sessions.ensure(agent="support", project=project, session_id="support-42", name=f"{customer}'s refund")
        item_log.append(
            session_keys.session_key(project, "support-42"), [{"role": "user", "content": f"I am {customer}."}]
        )
    make_member("both", Role.VIEWER, project="finance")
    administration.set_member(administration.Project.objects.get(pk="default"), "both", Role.APPROVER, actor="tests")

    log_in(page, "both")
    expect(page).to_have_url("/p/default/")
    expect(page.get_by_role("link", name="Ingrid's refund")).to_be_visible()
    expect(page.get_by_text("Farid's refund")).to_have_count(0)

    page.locator(".project-switcher summary").click()
    page.locator(".project-switcher").get_by_role("link", name="Finance").click()
    expect(page).to_have_url("/p/finance/")
    page.get_by_role("link", name="Farid's refund").click()
    expect(page).to_have_url("/p/finance/sessions/support-42/")
    expect(page.get_by_text("I am Farid.")).to_be_visible()
    expect(page.get_by_text("I am Ingrid.")).to_have_count(0)
    expect(page.locator(".project-switcher")).not_to_contain_text("Secret")

    page.goto("/p/secret/sessions/support-42/")
    expect(page.get_by_role("heading", name="You may not do that")).to_be_visible()
    expect(page.get_by_text("I am Sasha.")).to_have_count(0)
    # "/" opens the project opened last.
    page.goto("/")
    expect(page).to_have_url("/p/finance/")

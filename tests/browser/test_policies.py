"""A project admin adds an approval policy on its page and the preview names it (docs/dashboard.md, "Approval
policies")."""

import json

import pytest
from playwright.sync_api import expect

from historyhub.approvals import policies
from historyhub.projects.models import Group, Role
from tests.browser.conftest import log_in
from tests.support.actors import make_member
from tests.support.browser import screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def admin_page(page, transactional_db):
    make_member("ada", Role.ADMIN, password="ada-password-1")
    Group.objects.create(project_id="default", name="finance")
    log_in(page, "ada", "ada-password-1")
    return page


def test_an_admin_adds_refunds_over_10000_need_2_from_finance_and_the_preview_names_it(admin_page):
    page = admin_page
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("link", name="Edit the approval policies and preview which one governs an action").click()
    expect(page.get_by_role("heading", name="Approval policies of Default")).to_be_visible()
    expect(page.locator("#policies-rule")).to_contain_text("editing the policies does not change who may decide")

    form = page.locator("#policy-form")
    form.get_by_label("Name").fill("refunds over 10000")
    form.get_by_label("Agents").fill("support*")
    form.get_by_label("Actions").fill("issue_refund")
    form.get_by_label("When").fill(json.dumps([{"argument": "amount", "op": "gt", "value": 10000}]))
    form.get_by_role("group", name="Approver groups").get_by_label("finance").check()
    form.get_by_label("Approvals needed").fill("2")
    form.get_by_role("button", name="Save policy").click()

    expect(page.locator(".messages")).to_contain_text("The policy was saved.")
    added = page.locator("#policy-1")
    expect(added.get_by_role("heading")).to_have_text("1. refunds over 10000")
    expect(added).to_contain_text("amount gt 10000")
    expect(added).to_contain_text("members of finance")
    assert [(p["name"], p["requiredApprovals"], p["approverGroups"]) for p in policies.listing("default")] == [
        ("refunds over 10000", 2, ["finance"])
    ]

    preview = page.locator("#preview")
    preview.get_by_label("Agent").fill("supportAgent")
    preview.get_by_label("Action").fill("issue_refund")
    preview.get_by_label("Arguments").fill('{"amount": 25000}')
    preview.get_by_role("button", name="Preview").click()

    expect(page.locator("#preview-result")).to_have_text(
        "Policy 1, refunds over 10000, governs it: 2 approvals from members of finance."
    )
    expect(page.locator("#policy-1")).to_have_class("policy governing")
    screenshot(page, "policies")

    preview.get_by_label("Arguments").fill('{"amount": 500}')
    preview.get_by_role("button", name="Preview").click()
    expect(page.locator("#preview-result")).to_contain_text("No policy matches: the project's default governs it.")

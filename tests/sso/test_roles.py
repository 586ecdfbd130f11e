"""Project roles from the IdP's groups, set at each sign-in and audited as "sso"."""

import pytest
from django.test import Client

from historyhub.audit.models import AuditEntry
from historyhub.projects.models import Membership, Project
from tests.sso.conftest import sign_in
from tests.support.actors import make_member


@pytest.fixture
def mapped(issuer, settings):
    Project.objects.create(id="support", name="Support")
    settings.OIDC_ROLES_CLAIM = "groups"
    settings.OIDC_PROJECT_ROLES = {
        "engineers": {"default": "viewer", "support": "approver"},
        "leads": {"default": "admin"},
    }
    issuer.claims |= {"preferred_username": "ada"}
    return issuer


def roles():
    return dict(Membership.objects.filter(user__username="ada").values_list("project_id", "role"))


def test_the_groups_give_each_project_its_highest_role(db, mapped):
    mapped.claims["groups"] = ["engineers", "leads", "visitors"]

    sign_in(Client(), mapped)

    assert roles() == {"default": "admin", "support": "approver"}
    audited = AuditEntry.objects.filter(actor="sso", action="member.set").values_list("project_id", "target")
    assert sorted(audited) == [("default", "ada"), ("support", "ada")]


def test_each_sign_in_sets_the_roles_again_and_a_group_left_ends_its_access(db, mapped):
    mapped.claims["groups"] = ["engineers", "leads"]
    sign_in(Client(), mapped)
    mapped.claims["groups"] = ["engineers"]
    sign_in(Client(), mapped)
    assert roles() == {"default": "viewer", "support": "approver"}

    mapped.claims["groups"] = []
    sign_in(Client(), mapped)

    assert roles() == {}
    removed = AuditEntry.objects.filter(actor="sso", action="member.removed").values_list("project_id", flat=True)
    assert sorted(removed) == ["default", "support"]


def test_a_role_already_right_is_not_set_again(db, mapped):
    mapped.claims["groups"] = ["engineers"]
    sign_in(Client(), mapped)
    count = AuditEntry.objects.filter(actor="sso").count()

    sign_in(Client(), mapped)

    assert AuditEntry.objects.filter(actor="sso").count() == count == 2


def test_projects_the_mapping_does_not_name_keep_their_members(db, mapped):
    Project.objects.create(id="research", name="Research")
    ada = make_member("ada", "approver", project="research")
    ada.email = "ada@example.com"
    ada.save(update_fields=["email"])
    mapped.claims["groups"] = ["engineers"]

    sign_in(Client(), mapped)

    assert roles() == {"default": "viewer", "support": "approver", "research": "approver"}


def test_a_groups_claim_that_is_not_a_list_of_names_changes_nothing(db, mapped):
    mapped.claims["groups"] = ["engineers"]
    sign_in(Client(), mapped)
    mapped.claims["groups"] = {"leads": True}

    sign_in(Client(), mapped)

    assert roles() == {"default": "viewer", "support": "approver"}


def test_without_a_mapping_sign_in_sets_no_roles(db, issuer):
    issuer.claims |= {"preferred_username": "ada", "groups": ["engineers"]}

    sign_in(Client(), issuer)

    assert roles() == {}

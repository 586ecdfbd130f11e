import re

import pytest
import time_machine
from django.contrib.auth.models import Permission, User
from django.test import Client

from historyhub.apikeys.models import ApiKey, hash_key
from historyhub.approvals import deciding, policies
from historyhub.history import client_actions, item_log, sessions, transactions
from historyhub.history.models import ClientAction, Item, Operation, Session
from historyhub.projects.models import Group, Membership, Project, Role
from tests.support.actors import as_approver
from tests.support.html import parse


@pytest.fixture
def admin_client(db):
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="root-password-1"))
    return client


@pytest.fixture
def data(refund):
    sessions.ensure(agent="researchAgent", session_id="brief-1", name="Battery brief")
    item_log.append("brief-1", [{"id": "m1", "role": "user", "content": "Summarise <b>battery</b> rules."}])
    client_actions.open_action("brief-1", call_id="later", name="publish", arguments={"where": "blog"})
    deciding.decide("brief-1", "later", decision="reject", decider=as_approver("someone"))
    client_actions.open_action("brief-1", call_id="newest", name="archive", arguments={})


def listed(response):
    """The primary keys of the rows a change list shows, read off their change links."""
    links = parse(response).all("#result_list tbody tr th a")
    return [re.match(r"/admin/\w+/\w+/([^/]+)/change/", link["href"])[1] for link in links]


def test_sessions_can_be_searched_and_filtered(admin_client, data):
    assert listed(admin_client.get("/admin/history/session/", {"q": "battery"})) == ["brief-1"]
    assert listed(admin_client.get("/admin/history/session/", {"agent": "supportAgent"})) == ["refund-1"]
    waiting = listed(admin_client.get("/admin/history/session/", {"run_status": "waiting_for_client_action"}))
    assert sorted(waiting) == ["brief-1", "refund-1"]
    sessions.update("brief-1", status="completed")
    assert listed(admin_client.get("/admin/history/session/", {"status__exact": "completed"})) == ["brief-1"]


def test_editing_a_session_goes_through_the_domain_and_raises_its_version(admin_client, data):
    before = Session.objects.get(pk="brief-1").version
    page = parse(admin_client.get("/admin/history/session/brief-1/change/"))
    assert page.link("Open the timeline")["href"] == "/p/default/sessions/brief-1/"
    response = admin_client.post(
        "/admin/history/session/brief-1/change/",
        {
            "name": "Battery brief v2",
            "status": "paused",
            "run_status": "",
            "metadata_json": '{"team": "policy"}',
        },
    )
    assert response.status_code == 302
    session = Session.objects.get(pk="brief-1")
    assert session.name == "Battery brief v2" and session.status == "paused"
    assert session.metadata == {"team": "policy"} and session.version > before


def test_metadata_that_is_not_a_flat_object_is_refused(admin_client, data):
    response = admin_client.post(
        "/admin/history/session/brief-1/change/",
        {
            "name": "x",
            "status": "active",
            "run_status": "",
            "metadata_json": '{"nested": {"no": 1}}',
        },
    )
    assert response.status_code == 200
    assert "metadata must be an object whose values are strings" in parse(response).text(".errorlist")
    assert Session.objects.get(pk="brief-1").metadata == {}


def test_deleting_a_session_removes_all_it_owns(admin_client, data):
    confirmation = parse(admin_client.get("/admin/history/session/brief-1/delete/")).text("#content")
    assert "Items: 1" in confirmation and "Client actions: 2" in confirmation
    response = admin_client.post("/admin/history/session/brief-1/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Session.objects.filter(pk="brief-1").exists()
    assert not Item.objects.filter(session_id="brief-1").exists()


def test_items_are_shown_as_pretty_json_and_cannot_be_changed(admin_client, data):
    item = Item.objects.get(session_id="brief-1", item_key="m1")
    page = parse(admin_client.get(f"/admin/history/item/{item.pk}/change/"))
    [value] = [pre.exact_text() for pre in page.all("pre") if '"id": "m1"' in pre.exact_text()]
    assert value.startswith('{\n  "id": "m1",\n  "role": "user",')
    assert "Summarise <b>battery</b> rules." in value and not page.all("b:-soup-contains('battery')")
    assert not page.all("[name=_save]")
    assert admin_client.get("/admin/history/item/add/").status_code == 403
    response = admin_client.post(f"/admin/history/item/{item.pk}/change/", {"data": "{}"})
    assert response.status_code == 403 and Item.objects.get(pk=item.pk).value["id"] == "m1"


def test_client_actions_list_the_waiting_ones_first(admin_client, data):
    page = parse(admin_client.get("/admin/history/clientaction/"))
    order = [link.text() for link in page.all("#result_list tbody tr th.field-name a")]
    assert order[:2] == ["request_human_approval", "archive"] and order[2] == "publish"


def test_the_admin_approves_through_the_domain_as_the_admin_user(admin_client, data):
    waiting = ClientAction.objects.get(call_id="call_refund")
    response = admin_client.post(
        "/admin/history/clientaction/",
        {
            "action": "approve",
            "_selected_action": [waiting.pk],
        },
        follow=True,
    )
    assert parse(response).text(".messagelist") == "Approved 1 client action."
    action = client_actions.get("refund-1", "call_refund")
    assert action.status == "approved" and action.resolved_by == "root"
    assert action.approved_arguments == {"amount": 750, "currency": "USD"}
    assert Session.objects.get(pk="refund-1").waiting_count == 0


def test_the_admin_decides_all_the_selected_actions_or_none_and_says_why(admin_client, data):
    deciding.decide("refund-1", "call_refund", decision="approve", decider=as_approver("colleague"))
    selected = ClientAction.objects.filter(call_id__in=["newest", "call_refund"]).values_list("pk", flat=True)
    response = admin_client.post(
        "/admin/history/clientaction/",
        {
            "action": "reject",
            "_selected_action": list(selected),
        },
        follow=True,
    )
    messages = [message.text() for message in parse(response).all(".messagelist li")]
    assert messages == [
        "Nothing was decided, as refund-1/call_refund could not be: "
        "Client action 'call_refund' was already resolved differently."
    ]
    assert client_actions.get("brief-1", "newest").status == "waiting"
    assert client_actions.get("refund-1", "call_refund").status == "approved"


def decide_in_admin(client, decision, *call_ids):
    """Run the admin's decision action on the client actions with these call ids; the messages it shows."""
    selected = ClientAction.objects.filter(call_id__in=call_ids).values_list("pk", flat=True)
    client.post("/admin/history/clientaction/", {"action": decision, "_selected_action": list(selected)})
    return [message.text() for message in parse(client.get("/admin/history/clientaction/")).all(".messagelist li")]


def test_an_action_a_policy_keeps_from_the_admin_user_leaves_the_whole_selection_waiting(admin_client, data):
    """The deciders' rule refuses the superuser, who is in none of the policy's groups, in another project: the
    admin names that action by its session's key, as it lists it, says why, and decides none of the others."""
    Project.objects.create(id="acme", name="Acme")
    Group.objects.create(project_id="acme", name="finance")
    policies.replace("acme", [{"name": "finance only", "approverGroups": ["finance"]}], actor="tests")
    sessions.ensure(agent="billing", project="acme", session_id="invoices")
    client_actions.open_action("acme/invoices", call_id="pay", name="pay_invoice", arguments={"amount": 90})

    said = decide_in_admin(admin_client, "approve", "newest", "pay", "call_refund")

    assert said == [
        'Nothing was decided, as acme/invoices/pay could not be: The policy "finance only" lets only members of '
        "finance decide this action."
    ]
    for key, call_id in [("brief-1", "newest"), ("acme/invoices", "pay"), ("refund-1", "call_refund")]:
        assert client_actions.get(key, call_id).status == "waiting"


def test_an_action_that_expired_leaves_the_whole_selection_waiting(admin_client, data):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        client_actions.open_action("brief-1", call_id="soon", name="post", arguments={}, expires_at="2026-12-01T12:05Z")

    with time_machine.travel("2026-12-01T12:06:00Z", tick=False):
        said = decide_in_admin(admin_client, "reject", "soon", "newest")

    assert said == [
        "Nothing was decided, as brief-1/soon could not be: Client action 'soon' expired and can no longer be resolved."
    ]
    assert ClientAction.objects.get(call_id="soon").status == "waiting"
    assert client_actions.get("brief-1", "newest").status == "waiting"


def test_only_superusers_enter_the_admin_which_shows_every_project(db, data):
    """Staff who are not superusers, a project's admins among them, manage their project on its settings page."""
    staff = User.objects.create_user("staff", password="staff-password-1", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_clientaction"))
    Membership.objects.create(user=staff, project_id="default", role=Role.ADMIN)
    client = Client()
    client.force_login(staff)
    assert client.get("/admin/history/clientaction/").status_code == 302
    client.post(
        "/admin/history/clientaction/",
        {"action": "approve", "_selected_action": [ClientAction.objects.get(call_id="newest").pk]},
    )
    assert client_actions.get("brief-1", "newest").status == "waiting"


def issued_key(response):
    shown = parse(response).one("input#issued-key")
    assert shown.get("readonly") == "" and re.fullmatch(r"hh_[A-Za-z0-9_-]+", shown["value"])
    return shown["value"]


def anywhere_in(response):
    """The answer's raw text: a key must appear nowhere in it, neither as text nor in any attribute."""
    return response.content.decode()


def test_a_new_api_key_is_shown_once_on_the_answer_to_the_add_and_only_its_hash_is_kept(admin_client, db):
    form = parse(admin_client.get("/admin/apikeys/apikey/add/")).one("form#apikey_form")
    assert form.field("name") and not form.all("[name=key_hash], [name=prefix]")
    response = admin_client.post("/admin/apikeys/apikey/add/", {"project": "default", "name": "ci", "scopes": ["read"]})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    assert "Copy it now: only its hash is stored, so it cannot be shown again." in parse(response).text()
    key = issued_key(response)
    api_key = ApiKey.objects.get(name="ci")
    assert api_key.key_hash == hash_key(key) and api_key.scopes == "read"
    assert key not in anywhere_in(admin_client.get(f"/admin/apikeys/apikey/{api_key.pk}/change/"))
    assert ApiKey.authenticate(key) == api_key


def test_a_new_api_key_never_travels_in_a_cookie_a_message_or_a_log(admin_client, db, caplog):
    caplog.set_level("DEBUG")
    response = admin_client.post(
        "/admin/apikeys/apikey/add/", {"project": "default", "name": "ci", "scopes": ["write"]}
    )
    key = issued_key(response)
    # The messages cookie is signed, not encrypted: nothing may be put in it.
    assert "messages" not in response.cookies
    assert key not in anywhere_in(admin_client.get("/admin/apikeys/apikey/"))
    assert key not in caplog.text and ApiKey.authenticate(key).name == "ci"


def test_a_key_is_issued_with_the_scopes_ticked(admin_client, db):
    response = admin_client.post(
        "/admin/apikeys/apikey/add/", {"project": "default", "name": "slack bot", "scopes": ["read", "decide"]}
    )

    api_key = ApiKey.objects.get(name="slack bot")
    assert api_key.scopes == "read,decide"
    assert ApiKey.authenticate(issued_key(response)).allows("decide")


def test_the_key_hash_cannot_be_edited(admin_client, db):
    api_key, _ = ApiKey.issue("ci", "write")
    admin_client.post(
        f"/admin/apikeys/apikey/{api_key.pk}/change/",
        {"name": "renamed", "scopes": ["write"], "key_hash": "0" * 64, "prefix": "hh_forged"},
    )
    api_key.refresh_from_db()
    assert api_key.name == "renamed" and api_key.key_hash != "0" * 64 and api_key.prefix != "hh_forged"


def test_revoking_keys_stops_them_working(admin_client, db):
    api_key, key = ApiKey.issue("old", "write")
    response = admin_client.post(
        "/admin/apikeys/apikey/", {"action": "revoke", "_selected_action": [api_key.pk]}, follow=True
    )
    assert parse(response).text(".messagelist") == "Revoked 1 API key."
    assert ApiKey.authenticate(key) is None


def test_operations_are_read_only(admin_client, data):
    transactions.apply("brief-1", "op-1", {"type": "append_items", "items": [{"role": "user", "content": "x"}]})
    operation = Operation.objects.get(operation_id="op-1")
    page = parse(admin_client.get(f"/admin/history/operation/{operation.pk}/change/"))
    assert '"type": "append_items"' in page.text() and not page.all("[name=_save]")
    assert admin_client.get("/admin/history/operation/add/").status_code == 403

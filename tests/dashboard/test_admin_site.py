import re

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from historyhub.apikeys.models import ApiKey, hash_key
from historyhub.history import client_actions, item_log, sessions, transactions
from historyhub.history.models import ClientAction, Item, Operation, Session
from tests.support.html import text_of


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
    client_actions.decide("brief-1", "later", decision="reject", resolved_by="someone")
    client_actions.open_action("brief-1", call_id="newest", name="archive", arguments={})


def test_sessions_can_be_searched_and_filtered(admin_client, data):
    html = text_of(admin_client.get("/admin/history/session/", {"q": "battery"}))
    assert "brief-1" in html and "refund-1" not in html
    html = text_of(admin_client.get("/admin/history/session/", {"agent": "supportAgent"}))
    assert "refund-1" in html and "brief-1" not in html
    html = text_of(admin_client.get("/admin/history/session/", {"run_status": "waiting_for_client_action"}))
    assert "refund-1" in html and "brief-1" in html
    sessions.update("brief-1", status="completed")
    html = text_of(admin_client.get("/admin/history/session/", {"status__exact": "completed"}))
    assert "brief-1" in html and "refund-1" not in html


def test_editing_a_session_goes_through_the_domain_and_raises_its_version(admin_client, data):
    before = Session.objects.get(pk="brief-1").version
    page = text_of(admin_client.get("/admin/history/session/brief-1/change/"))
    assert "Open the timeline" in page
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
    assert "metadata must be an object whose values are strings" in text_of(response)
    assert Session.objects.get(pk="brief-1").metadata == {}


def test_deleting_a_session_removes_all_it_owns(admin_client, data):
    confirmation = text_of(admin_client.get("/admin/history/session/brief-1/delete/"))
    assert "Items: 1" in confirmation and "Client actions: 2" in confirmation
    response = admin_client.post("/admin/history/session/brief-1/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Session.objects.filter(pk="brief-1").exists()
    assert not Item.objects.filter(session_id="brief-1").exists()


def test_items_are_shown_as_pretty_json_and_cannot_be_changed(admin_client, data):
    item = Item.objects.get(session_id="brief-1", item_key="m1")
    html = text_of(admin_client.get(f"/admin/history/item/{item.pk}/change/"))
    assert "<pre>{\n  &quot;id&quot;: &quot;m1&quot;,\n  &quot;role&quot;: &quot;user&quot;," in html
    assert "Summarise &lt;b&gt;battery&lt;/b&gt; rules." in html
    assert 'name="_save"' not in html
    assert admin_client.get("/admin/history/item/add/").status_code == 403
    response = admin_client.post(f"/admin/history/item/{item.pk}/change/", {"data": "{}"})
    assert response.status_code == 403 and Item.objects.get(pk=item.pk).value["id"] == "m1"


def test_client_actions_list_the_waiting_ones_first(admin_client, data):
    html = text_of(admin_client.get("/admin/history/clientaction/"))
    order = re.findall(r'<th class="field-name"><a href="[^"]+">([^<]+)</a>', html)
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
    assert "Approved 1 client action." in text_of(response)
    action = client_actions.get("refund-1", "call_refund")
    assert action.status == "approved" and action.resolved_by == "root"
    assert action.approved_arguments == {"amount": 750, "currency": "USD"}
    assert Session.objects.get(pk="refund-1").waiting_count == 0


def test_the_admin_reject_action_reports_what_it_could_not_decide(admin_client, data):
    client_actions.decide("refund-1", "call_refund", decision="approve", resolved_by="colleague")
    selected = ClientAction.objects.filter(call_id__in=["newest", "call_refund"]).values_list("pk", flat=True)
    response = admin_client.post(
        "/admin/history/clientaction/",
        {
            "action": "reject",
            "_selected_action": list(selected),
        },
        follow=True,
    )
    html = text_of(response)
    assert "Rejected 1 client action." in html
    assert "Client action &#x27;call_refund&#x27; was already resolved differently." in html
    assert client_actions.get("brief-1", "newest").status == "rejected"
    assert client_actions.get("refund-1", "call_refund").status == "approved"


def test_a_staff_member_without_the_permission_gets_no_decision_actions(db, data):
    staff = User.objects.create_user("staff", password="staff-password-1", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_clientaction"))
    client = Client()
    client.force_login(staff)
    html = text_of(client.get("/admin/history/clientaction/"))
    assert 'value="approve"' not in html
    client.post(
        "/admin/history/clientaction/",
        {"action": "approve", "_selected_action": [ClientAction.objects.get(call_id="newest").pk]},
    )
    assert client_actions.get("brief-1", "newest").status == "waiting"


def issued_key(response):
    return re.search(
        r'<input type="text" id="issued-key" readonly size="60" value="(hh_[A-Za-z0-9_-]+)"', text_of(response)
    )[1]


def test_a_new_api_key_is_shown_once_on_the_answer_to_the_add_and_only_its_hash_is_kept(admin_client, db):
    page = text_of(admin_client.get("/admin/apikeys/apikey/add/"))
    assert 'name="key_hash"' not in page and 'name="prefix"' not in page
    response = admin_client.post("/admin/apikeys/apikey/add/", {"name": "ci", "scope": "read"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    assert "Copy it now: only its hash is stored, so it cannot be shown again." in text_of(response)
    key = issued_key(response)
    api_key = ApiKey.objects.get(name="ci")
    assert api_key.key_hash == hash_key(key) and api_key.scope == "read"
    assert key not in text_of(admin_client.get(f"/admin/apikeys/apikey/{api_key.pk}/change/"))
    assert ApiKey.authenticate(key) == api_key


def test_a_new_api_key_never_travels_in_a_cookie_a_message_or_a_log(admin_client, db, caplog):
    caplog.set_level("DEBUG")
    response = admin_client.post("/admin/apikeys/apikey/add/", {"name": "ci", "scope": "write"})
    key = issued_key(response)
    # The messages cookie is signed, not encrypted: nothing may be put in it.
    assert "messages" not in response.cookies
    assert key not in text_of(admin_client.get("/admin/apikeys/apikey/"))
    assert key not in caplog.text and ApiKey.authenticate(key).name == "ci"


def test_the_key_hash_cannot_be_edited(admin_client, db):
    api_key, _ = ApiKey.issue("ci", "write")
    admin_client.post(
        f"/admin/apikeys/apikey/{api_key.pk}/change/",
        {"name": "renamed", "scope": "write", "key_hash": "0" * 64, "prefix": "hh_forged"},
    )
    api_key.refresh_from_db()
    assert api_key.name == "renamed" and api_key.key_hash != "0" * 64 and api_key.prefix != "hh_forged"


def test_revoking_keys_stops_them_working(admin_client, db):
    api_key, key = ApiKey.issue("old", "write")
    response = admin_client.post(
        "/admin/apikeys/apikey/", {"action": "revoke", "_selected_action": [api_key.pk]}, follow=True
    )
    assert "Revoked 1 API key." in text_of(response)
    assert ApiKey.authenticate(key) is None


def test_operations_are_read_only(admin_client, data):
    transactions.apply("brief-1", "op-1", {"type": "append_items", "items": [{"role": "user", "content": "x"}]})
    operation = Operation.objects.get(operation_id="op-1")
    html = text_of(admin_client.get(f"/admin/history/operation/{operation.pk}/change/"))
    assert "&quot;append_items&quot;" in html and 'name="_save"' not in html
    assert admin_client.get("/admin/history/operation/add/").status_code == 403

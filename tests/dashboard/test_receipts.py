"""Download receipt (docs/receipts.md): every card of an action that no longer waits links to its signed receipt,
which anyone who may see the session downloads as <project>-<callId>-receipt.jws; a waiting action has none."""

import pytest
from django.test import Client
from django.urls import reverse

from historyhub.approvals import deciding
from historyhub.history import client_actions
from historyhub.projects.models import Role
from tests.support.actors import as_approver, logged_in, make_member
from tests.support.html import parse
from tests.support.receipts import by_hand, with_pyjwt

SESSION_PAGE = reverse("dashboard:session", args=["default", "refund-1"])


def receipt_url(call_id="call_refund", project="default", session_id="refund-1"):
    return reverse("dashboard:action_receipt", args=[project, session_id, call_id])


def jwks():
    return Client().get("/.well-known/jwks.json").json()


def test_a_decided_card_links_to_its_receipt_and_a_waiting_one_does_not(viewer_client, refund):
    assert parse(viewer_client.get(SESSION_PAGE)).links("Download receipt") == []

    deciding.decide("refund-1", "call_refund", decision="reject", comment="no", decider=as_approver())

    link = parse(viewer_client.get(SESSION_PAGE)).link("Download receipt")
    assert link["href"] == receipt_url()
    assert link.get("download") is not None


def test_anyone_who_may_see_the_session_downloads_the_signed_receipt(viewer_client, refund):
    deciding.decide("refund-1", "call_refund", decision="approve", decider=as_approver())

    answer = viewer_client.get(receipt_url())

    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/jose"
    assert answer["Content-Disposition"] == 'attachment; filename="default-call_refund-receipt.jws"'
    receipt = answer.content.decode()
    payload = with_pyjwt(receipt, jwks())
    assert by_hand(receipt, jwks()) == payload
    assert (payload["callId"], payload["status"], payload["votes"][0]["by"]) == ("call_refund", "approved", "owner")
    assert payload["votes"][0]["via"] == "dashboard"


def test_a_call_id_that_is_no_file_name_is_made_one(viewer_client, refund):
    client_actions.open_action("refund-1", call_id='calls/1 "a"', name="send_mail", arguments={})
    deciding.decide("refund-1", 'calls/1 "a"', decision="reject", decider=as_approver())

    answer = viewer_client.get(receipt_url('calls/1 "a"'))

    assert answer.status_code == 200
    assert answer["Content-Disposition"] == 'attachment; filename="default-calls_1__a_-receipt.jws"'
    assert with_pyjwt(answer.content.decode(), jwks())["callId"] == 'calls/1 "a"'


def test_a_waiting_action_has_no_receipt(viewer_client, refund):
    assert viewer_client.get(receipt_url()).status_code == 404


@pytest.mark.parametrize("call_id", ["nope", "call_refund/more"])
def test_an_unknown_action_is_404(viewer_client, refund, call_id):
    deciding.decide("refund-1", "call_refund", decision="reject", decider=as_approver())

    assert viewer_client.get(receipt_url(call_id)).status_code == 404


def test_a_person_outside_the_project_gets_no_receipt(refund):
    deciding.decide("refund-1", "call_refund", decision="reject", decider=as_approver())
    outsider = logged_in(make_member("olga", Role.ADMIN, project="acme"))

    assert outsider.get(receipt_url()).status_code == 403
    # Nor through a project of their own: the session is not there.
    assert outsider.get(receipt_url(project="acme")).status_code == 404
    assert Client().get(receipt_url()).status_code == 302  # to the login page

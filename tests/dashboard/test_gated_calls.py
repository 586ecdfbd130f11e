"""A tool call that waits for approval is decided on its own card in the timeline."""

import time_machine

from historyhub.history import client_actions, item_log
from tests.support.actors import post
from tests.support.html import parse
from tests.support.readers import decision_url

CALL = {"type": "function_call", "call_id": "call_pay", "name": "pay_invoice", "arguments": '{"invoice": 42}'}


def gated_call(session_id="pay-1", **fields):
    item_log.append(session_id, [CALL])
    client_actions.open_action(session_id, call_id="call_pay", name="pay_invoice", arguments={"invoice": 42}, **fields)


def test_the_call_card_carries_the_approve_and_reject_buttons(approver_client, db):
    gated_call()

    page = parse(approver_client.get("/p/default/sessions/pay-1/"))

    card = page.one(".card.action")
    assert not page.all(".card.client-action")
    assert card.button("Approve") and card.button("Reject")
    assert [badge.text() for badge in card.all("summary .badge")] == ["waiting for approval"]


def test_an_approver_decides_on_the_call_card(approver_client, db):
    gated_call()

    response = post(
        approver_client, decision_url("pay-1", "call_pay"), {"decision": "reject", "comment": "Paid."}, htmx=True
    )

    assert response.status_code == 200
    assert client_actions.get("pay-1", "call_pay").status == "rejected"
    card = parse(response).one(".card.action")
    assert [badge.text() for badge in card.all("summary .badge")] == ["rejected"]
    assert card.one("dl.resolution").terms()["Comment"] == "Paid." and not card.buttons("Approve")


def test_an_expired_approval_shows_expired_without_anyone_writing_it(approver_client, db):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        gated_call(expires_at="2026-12-01T12:05:00Z")

    with time_machine.travel("2026-12-01T12:06:00Z", tick=False):
        card = parse(approver_client.get("/p/default/sessions/pay-1/")).one(".card.action")

    assert [badge.text() for badge in card.all("summary .badge")] == ["expired"] and not card.buttons("Approve")
    assert client_actions.get("pay-1", "call_pay").status == "waiting"


def test_an_approved_call_reads_as_the_call_and_its_duration_leaves_out_the_wait(approver_client, db):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        item_log.append("pay-1", [{**CALL, "createdAt": "2026-12-01T12:00:00Z"}])
        client_actions.open_action("pay-1", call_id="call_pay", name="pay_invoice", arguments={"invoice": 42})
    with time_machine.travel("2026-12-01T12:00:58Z", tick=False):
        post(approver_client, decision_url("pay-1", "call_pay"), {"decision": "approve"})
    item_log.append(
        "pay-1",
        [
            {
                "type": "function_call_output",
                "call_id": "call_pay",
                "output": "paid",
                "createdAt": "2026-12-01T12:00:58.200Z",
            }
        ],
    )

    card = parse(approver_client.get("/p/default/sessions/pay-1/")).one(".card.action")

    assert [badge.text() for badge in card.all("summary .badge")] == ["completed"]
    assert (card.text("summary .duration"), card.text("summary .waited")) == ("200 ms", "waited 58.0 s")
    assert "by owner" in card.text("summary")
    assert "is waiting for the client" not in card.text(".card-body") and "completed." not in card.text(".card-body")


def test_an_edited_approval_of_a_call_says_what_changed_on_its_collapsed_row(approver_client, db):
    gated_call()
    post(approver_client, decision_url("pay-1", "call_pay"), {"decision": "approve", "arguments": '{"invoice": 43}'})

    row = parse(approver_client.get("/p/default/sessions/pay-1/")).one(".card.action > summary")

    assert "approved by owner" in row.text()
    assert row.text(".edits") == "edited: invoice 42 → 43"

import json

import pytest

from historyhub.approvals import deciding
from historyhub.history import client_actions
from historyhub.history.models import TimelineEntry
from tests.support.actors import as_approver, post
from tests.support.html import parse
from tests.support.readers import decision_url


def action():
    return client_actions.get("refund-1", "call_refund")


def test_an_approver_approves_with_a_comment_and_edited_arguments(approver_client, refund):
    response = post(
        approver_client,
        decision_url("refund-1", "call_refund"),
        {
            "decision": "approve",
            "comment": "Photo checks out.",
            "arguments": json.dumps({"amount": 700, "currency": "USD"}),
        },
        htmx=True,
    )
    assert response.status_code == 200
    decided = action()
    assert decided.status == "approved" and decided.resolved_by == "owner"
    assert decided.comment == "Photo checks out."
    assert decided.arguments == {"amount": 750, "currency": "USD"}
    assert decided.approved_arguments == {"amount": 700, "currency": "USD"}

    page = parse(response)
    card = page.children[0]
    assert card.tag == "article" and card["id"].startswith("entry-")
    status = card.one("summary .badge")
    assert status.text() == "approved" and "state-approved" in status.classes
    resolution = card.one("dl.resolution").terms()
    assert resolution["By"] == "owner" and resolution["Comment"] == "Photo checks out."
    assert not card.buttons("Approve")
    # The same answer refreshes the header and the navigation's count, out of band.
    assert page.one("#session-header")["hx-swap-oob"] == "true"
    count = page.one("#inbox-count")
    assert (count["hx-get"], count["hx-swap-oob"]) == ("/p/default/approvals/count/?since=0", "true")
    assert (count.text(), count["title"]) == ("0", "0 waiting for a person")


def test_approving_with_untouched_arguments_keeps_them(approver_client, refund):
    post(
        approver_client,
        decision_url("refund-1", "call_refund"),
        {"decision": "approve", "arguments": json.dumps({"amount": 750, "currency": "USD"})},
        htmx=True,
    )
    assert action().approved_arguments == {"amount": 750, "currency": "USD"}


def test_an_approver_rejects_and_the_arguments_box_is_ignored(approver_client, refund):
    response = post(
        approver_client,
        decision_url("refund-1", "call_refund"),
        {"decision": "reject", "comment": "Too much.", "arguments": "not json"},
        htmx=True,
    )
    assert response.status_code == 200
    rejected = action()
    assert rejected.status == "rejected" and rejected.comment == "Too much." and rejected.approved_arguments is None


@pytest.mark.parametrize(
    "arguments, message",
    [
        ('{"amount": 700', "The arguments are not valid JSON: Expecting ',' delimiter at line 1, column 15."),
        ("[1, 2]", "The arguments must be a JSON object"),
        ('{"amount": NaN}', "The arguments are not valid JSON: NaN is not a JSON number."),
    ],
)
def test_arguments_that_are_not_a_json_object_get_a_clear_error_and_change_nothing(
    approver_client, refund, arguments, message
):
    response = post(
        approver_client,
        decision_url("refund-1", "call_refund"),
        {"decision": "approve", "comment": "ok", "arguments": arguments},
        htmx=True,
    )
    assert response.status_code == 422
    form = parse(response).one("form.decision")
    error = form.one(".field-error")
    box = form.field("arguments")
    assert message in error.text() and error["role"] == "alert"
    assert (box["aria-invalid"], box["aria-describedby"]) == ("true", error["id"])
    # What the person typed stays in the form so they can fix it.
    assert form.button("Approve") and form.field("comment").exact_text() == "ok"
    assert box.exact_text() == arguments
    assert action().status == "waiting"


def test_an_unknown_decision_is_refused_and_changes_nothing(approver_client, refund):
    response = post(approver_client, decision_url("refund-1", "call_refund"), {"decision": "maybe"}, htmx=True)
    assert response.status_code == 422 and action().status == "waiting"


def test_a_viewers_forged_decision_is_forbidden_and_changes_nothing(viewer_client, refund):
    response = post(viewer_client, decision_url("refund-1", "call_refund"), {"decision": "approve"}, htmx=True)
    assert response.status_code == 403
    assert action().status == "waiting"


def test_a_decision_without_the_csrf_token_is_refused(approver_client, refund):
    response = approver_client.post(
        decision_url("refund-1", "call_refund"), {"decision": "approve"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 403
    assert action().status == "waiting"


def test_a_decision_is_never_a_get(approver_client, refund):
    assert approver_client.get(decision_url("refund-1", "call_refund")).status_code == 405
    assert action().status == "waiting"


def test_deciding_what_someone_else_already_decided_shows_why_and_the_outcome(approver_client, refund):
    deciding.decide("refund-1", "call_refund", decision="reject", decider=as_approver("colleague"))
    response = post(approver_client, decision_url("refund-1", "call_refund"), {"decision": "approve"}, htmx=True)
    assert response.status_code == 409
    card = parse(response).one("article.entry")
    assert "was already resolved differently" in card.text()
    assert card.one("dl.resolution").terms()["By"] == "colleague"
    assert action().status == "rejected"


def test_without_javascript_a_decision_redirects_back_to_the_card_with_a_message(approver_client, refund):
    url = decision_url("refund-1", "call_refund")
    response = post(approver_client, url, {"decision": "approve", "arguments": "{}"})
    assert response.status_code == 302
    entry_id = url.split("/entries/")[1].split("/")[0]
    assert response["Location"] == f"/p/default/sessions/refund-1/#entry-{entry_id}"
    assert "Decision recorded." in parse(approver_client.get(response["Location"])).text(".messages")
    assert action().approved_arguments == {}


def test_without_javascript_an_error_comes_back_as_a_message(approver_client, refund):
    response = post(approver_client, decision_url("refund-1", "call_refund"), {"decision": "approve", "arguments": "{"})
    assert response.status_code == 302
    assert "The arguments are not valid JSON" in parse(approver_client.get(response["Location"])).text(".messages")
    assert action().status == "waiting"


def test_a_card_that_is_not_a_client_action_cannot_be_decided(approver_client, refund):
    message = TimelineEntry.objects.get(session_id="refund-1", type="message")
    response = post(
        approver_client, f"/p/default/sessions/refund-1/entries/{message.pk}/decision/", {"decision": "approve"}
    )
    assert response.status_code == 404
    assert action().status == "waiting"


def test_a_decision_form_sent_without_its_buttons_decides_nothing_and_says_which_buttons_do(approver_client, refund):
    response = post(
        approver_client, decision_url("refund-1", "call_refund"), {"comment": "No - do not send"}, htmx=True
    )
    assert response.status_code == 422 and action().status == "waiting"
    assert "Nothing was decided: press Approve or Reject to decide." in parse(response).text()


def test_the_form_lets_no_field_decide_by_enter(approver_client, refund):
    page = parse(approver_client.get("/p/default/sessions/refund-1/"))
    form = page.one("form.decision")
    # A browser submits a form on Enter through its first submit button: disabled, it submits nothing.
    first = form.all("button[type=submit]")[0]
    assert first.get("disabled") == "" and first.get("hidden") == "" and not first.get("name")
    assert [field.tag for field in form.all("input:not([type=hidden]), textarea")] == ["textarea", "textarea"]
    assert [button.text() for button in form.all("button[name=decision]")] == ["Approve", "Reject"]

"""A person who may not decide, deciding anyway, gets a page that says what they lack and whom to ask;
the API keeps its JSON error (templates/403.html)."""

from django.urls import reverse

from historyhub.history import client_actions
from tests.support.actors import post
from tests.support.html import parse
from tests.support.readers import assert_error, decision_url


def test_a_forced_decision_says_which_role_is_missing_and_whom_to_ask(viewer_client, refund):
    for url in (decision_url("refund-1", "call_refund"), reverse("dashboard:decide_selected", args=["default"])):
        response = post(viewer_client, url, {"selected": "refund-1/call_refund", "decision": "approve"})
        assert response.status_code == 403 and response["Content-Type"].startswith("text/html")
        page = parse(response)
        assert page.text("h1") == "You may not do that"
        said = page.text("main")
        assert (
            "Deciding client actions needs the approver or admin role in this project; ask one of its admins." in said
        )
        assert "Nothing was changed." in said and page.link("Back to the sessions")
    assert client_actions.get("refund-1", "call_refund").status == "waiting"


def test_the_api_still_answers_403_as_json(read_api, refund):
    response = read_api.post("sessions/refund-1/client-actions/call_refund/decision", {"decision": "approve"})
    assert_error(response, 403, "forbidden")

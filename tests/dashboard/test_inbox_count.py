import time_machine
from django.urls import reverse

from historyhub.approvals import deciding
from historyhub.history import client_actions
from tests.support.actors import HTMX, as_approver
from tests.support.html import parse

URL = reverse("dashboard:inbox_count", args=["default"])


def test_every_page_shows_the_number_of_waiting_actions_in_the_navigation(viewer_client, refund):
    for page in ("/p/default/", "/p/default/sessions/refund-1/", "/p/default/approvals/"):
        count = parse(viewer_client.get(page)).one("nav #inbox-count")
        assert (count.text(), count["title"], count.classes) == (
            "1",
            "1 waiting for a person",
            ["count", "has-waiting"],
        )
        assert (count["hx-get"], count["hx-trigger"], count["hx-swap"]) == (
            "/p/default/approvals/count/?since=1",
            "sse:changed",
            "outerHTML",
        )


def test_the_count_answers_204_while_it_has_not_changed(viewer_client, refund):
    assert viewer_client.get(URL, {"since": 1}, headers=HTMX).status_code == 204


def test_the_count_comes_back_when_it_changed(viewer_client, refund):
    deciding.decide("refund-1", "call_refund", decision="approve", decider=as_approver())
    response = viewer_client.get(URL, {"since": 1}, headers=HTMX)
    assert response.status_code == 200
    [count] = parse(response).children
    assert (count["id"], count.text(), count["title"]) == ("inbox-count", "0", "0 waiting for a person")
    assert "has-waiting" not in count.classes


def test_an_action_past_its_expiry_no_longer_counts(viewer_client, refund):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        client_actions.open_action(
            "refund-1", call_id="soon", name="n", arguments={}, expires_at="2026-12-01T12:05:00Z"
        )
        assert parse(viewer_client.get(URL, headers=HTMX)).text("#inbox-count") == "2"
    with time_machine.travel("2026-12-01T12:05:00Z", tick=False):
        assert parse(viewer_client.get(URL, headers=HTMX)).text("#inbox-count") == "1"

import time_machine
from django.urls import reverse

from historyhub.history import client_actions
from tests.support.actors import HTMX
from tests.support.html import text_of

URL = reverse("dashboard:inbox_count")


def test_every_page_shows_the_number_of_waiting_actions_in_the_navigation(viewer_client, refund):
    for page in ("/", "/sessions/refund-1/", "/approvals/"):
        html = text_of(viewer_client.get(page))
        assert (
            '<span id="inbox-count" class="count has-waiting" hx-get="/approvals/count/?since=1" '
            'hx-trigger="sse:changed" hx-swap="outerHTML" title="1 waiting for a person">1</span>' in html
        )


def test_the_count_answers_204_while_it_has_not_changed(viewer_client, refund):
    assert viewer_client.get(URL, {"since": 1}, headers=HTMX).status_code == 204


def test_the_count_comes_back_when_it_changed(viewer_client, refund):
    client_actions.decide("refund-1", "call_refund", decision="approve", resolved_by="owner")
    response = viewer_client.get(URL, {"since": 1}, headers=HTMX)
    assert response.status_code == 200
    assert text_of(response).strip().endswith('title="0 waiting for a person">0</span>')
    assert "has-waiting" not in text_of(response)


def test_an_action_past_its_expiry_no_longer_counts(viewer_client, refund):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        client_actions.open_action(
            "refund-1", call_id="soon", name="n", arguments={}, expires_at="2026-12-01T12:05:00Z"
        )
        assert ">2</span>" in text_of(viewer_client.get(URL, headers=HTMX))
    with time_machine.travel("2026-12-01T12:05:00Z", tick=False):
        assert ">1</span>" in text_of(viewer_client.get(URL, headers=HTMX))

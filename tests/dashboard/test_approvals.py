import re
from datetime import datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from historyhub.approvals import deciding
from historyhub.dashboard.inbox_page import APPROVALS_PAGE_SIZE
from historyhub.history import client_actions, sessions
from historyhub.history.models import ClientAction
from tests.support.actors import HTMX, as_approver, post
from tests.support.html import parse

URL = reverse("dashboard:approvals", args=["default"])
DECIDE = reverse("dashboard:decide_selected", args=["default"])


@pytest.fixture
def inbox(db):
    sessions.ensure(agent="supportAgent", session_id="s-old", name="The older one")
    sessions.ensure(agent="billingAgent", session_id="s-new")
    client_actions.open_action("s-old", call_id="a1", name="issue_refund", arguments={"amount": 750})
    client_actions.open_action("s-new", call_id="b/1", name="send_invoice", arguments={"to": "chen@example.com"})
    client_actions.open_action("s-new", call_id="b2", name="close_account", arguments={})
    deciding.decide("s-new", "b2", decision="approve", decider=as_approver("someone"))
    ClientAction.objects.filter(call_id="a1").update(created_at=timezone.now() - timedelta(hours=3))


def status(session_id, call_id):
    return client_actions.get(session_id, call_id).status


def confirmation_form(response):
    """What the confirmation a decision on several actions answers with would send."""
    form = parse(response).one("section.confirmation form")
    return form.submitted(form.one("button[name=decision]"))


def test_it_lists_every_waiting_action_oldest_first_with_session_agent_arguments_and_age(viewer_client, inbox):
    page = parse(viewer_client.get(URL))
    approvals = page.all("li.approval")
    assert [approval.text("h2.approval-title") for approval in approvals] == ["issue_refund a1", "send_invoice b/1"]
    first = approvals[0]
    assert first.link("The older one")["href"] == "/p/default/sessions/s-old/"
    assert first.text(".agent") == "supportAgent" and '"amount": 750' in first.one("pre.json").exact_text()
    asked = first.one("time")
    assert re.fullmatch(r"asked \d{4}-\d\d-\d\d \d\d:\d\d UTC", asked.text()) and asked.get("data-local") == ""
    assert datetime.fromisoformat(asked["datetime"]) < timezone.now() - timedelta(hours=2, minutes=59)
    assert "close account" not in page.text()


def test_a_viewer_reads_the_inbox_without_any_way_to_decide(viewer_client, inbox):
    approvals = parse(viewer_client.get(URL)).one("#approval-list")
    assert "issue_refund a1" in approvals.text()
    # Copying the arguments is all a button there does.
    assert not approvals.all("form, button:not(.copy), input[type=checkbox]")
    assert "Approve" not in approvals.text() and "Reject" not in approvals.text()


def test_an_approver_gets_inline_buttons_and_a_bulk_form(approver_client, inbox):
    page = parse(approver_client.get(URL))
    assert len(page.buttons("Approve", value="approve")) == 3 and len(page.buttons("Reject", value="reject")) == 3
    assert page.one("form#bulk-decision").button("Approve")
    boxes = page.all("li.approval input[type=checkbox].select")
    assert [(box["value"], box["form"]) for box in boxes] == [
        ("s-old/a1", "bulk-decision"),
        ("s-new/b/1", "bulk-decision"),
    ]
    assert all(box["id"].startswith("select-") for box in boxes)
    assert page.one("script[src='/static/js/approvals.js']").get("defer") == ""


def test_no_field_of_a_decision_form_decides_by_enter(approver_client, inbox):
    page = parse(approver_client.get(URL))
    forms = page.all("form#bulk-decision, form.approval-decision")
    assert len(forms) == 3
    for form in forms:
        # A browser submits a form on Enter through its first submit button: disabled, it submits nothing.
        # Chromium answers Enter on a checkbox with the first enabled one: it names no decision.
        first, second = form.all("button[type=submit]")[:2]
        assert first.get("disabled") == "" and first.get("hidden") == "" and not first.get("name")
        assert second.get("disabled") is None and second.get("hidden") == "" and not second.get("name")
        # The batch bar offers every decision a batch may take (batch.DECISIONS); a card, those its action allows.
        offered = ["Approve", "Reject", "Dismiss"] if form.get("id") == "bulk-decision" else ["Approve", "Reject"]
        assert [button.text() for button in form.all("button[name=decision]")] == offered
    assert [field.tag for field in page.all("form.approval-decision [name=comment], #bulk-comment")] == ["textarea"] * 3


def test_a_decision_sent_without_its_buttons_decides_nothing_and_says_which_buttons_do(approver_client, inbox):
    for data in ({"selected": "s-old/a1", "comment": "No - already paid"}, {"selected": ["s-old/a1", "s-new/b/1"]}):
        response = post(approver_client, DECIDE, data, htmx=True)
        assert response.status_code == 422
        shown = parse(response).text("#approval-messages")
        assert shown == "Nothing was decided: press Approve, Reject or Dismiss to decide."
    assert status("s-old", "a1") == "waiting" and status("s-new", "b/1") == "waiting"


def test_approving_one_inline_resolves_it_as_the_approver(approver_client, inbox):
    response = post(
        approver_client, DECIDE, {"selected": "s-new/b/1", "decision": "approve", "comment": "fine"}, htmx=True
    )
    assert response.status_code == 200
    action = client_actions.get("s-new", "b/1")
    assert action.status == "approved" and action.resolved_by == "owner" and action.comment == "fine"
    assert action.approved_arguments == {"to": "chen@example.com"}
    page = parse(response)
    assert page.children[0]["id"] == "approval-list"
    assert page.text("#approval-messages") == "Approved 1 action: send_invoice (b/1) in s-new."
    assert [approval.text("h2.approval-title") for approval in page.all("li.approval")] == ["issue_refund a1"]
    count = page.one("#inbox-count")
    assert (count.text(), count["title"], count["hx-swap-oob"]) == ("1", "1 waiting for a person", "true")
    assert status("s-old", "a1") == "waiting"


def test_an_action_that_cannot_be_decided_leaves_every_other_one_of_the_batch_waiting(approver_client, inbox):
    asked = post(approver_client, DECIDE, {"selected": ["s-old/a1", "s-new/b/1"], "decision": "reject"}, htmx=True)
    form = confirmation_form(asked)
    # One more key than the confirmation listed, as no browser would send: it is not waiting, so nothing is decided.
    response = post(approver_client, DECIDE, {**form, "selected": [*form["selected"], "s-new/b2"]}, htmx=True)
    assert response.status_code == 409
    page = parse(response)
    said = "Nothing was decided, as s-new/b2 could not be: Client action 'b2' was already resolved differently."
    assert said in page.text()
    assert "Rejected" not in page.text()
    assert status("s-new", "b/1") == "waiting" and status("s-old", "a1") == "waiting"


@pytest.mark.parametrize("bad", ["s-new/b2\x00", "s-old\x00/a1", "bad id!/a1", "s-old/" + "x" * 201])
def test_a_selection_with_one_key_no_action_can_have_is_refused_whole_before_anything_is_decided(
    approver_client, inbox, bad
):
    response = post(approver_client, DECIDE, {"selected": ["s-old/a1", bad], "decision": "reject"}, htmx=True)
    assert response.status_code == 422 and "That is not a client action." in parse(response).text()
    assert status("s-old", "a1") == "waiting" and status("s-new", "b/1") == "waiting"


def test_a_selection_naming_a_missing_action_decides_none_of_the_others(approver_client, inbox):
    asked = post(approver_client, DECIDE, {"selected": ["s-old/a1", "s-new/b/1"], "decision": "reject"}, htmx=True)
    form = confirmation_form(asked)
    response = post(approver_client, DECIDE, {**form, "selected": [*form["selected"], "s-old/zzz"]})
    assert response.status_code == 302
    page = parse(approver_client.get(response["Location"]))
    said = "Nothing was decided, as s-old/zzz could not be: Client action 'zzz' was not found in session 's-old'."
    assert said in page.text(".messages")
    assert status("s-old", "a1") == "waiting" and status("s-new", "b/1") == "waiting"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"decision": "approve"}, "Select at least one action."),
        ({"selected": "no-slash", "decision": "approve"}, "That is not a client action."),
        ({"selected": "s-old/a1", "decision": "sure"}, "Select a valid choice."),
    ],
)
def test_a_bulk_decision_that_cannot_be_understood_changes_nothing(approver_client, inbox, data, message):
    response = post(approver_client, DECIDE, data, htmx=True)
    assert response.status_code == 422 and message in parse(response).text()
    assert status("s-old", "a1") == "waiting" and status("s-new", "b/1") == "waiting"


def test_an_action_that_does_not_exist_is_reported(approver_client, inbox):
    page = parse(post(approver_client, DECIDE, {"selected": "s-old/zzz", "decision": "approve"}, htmx=True))
    assert "Client action 'zzz' was not found in session 's-old'." in page.text()


def test_a_viewers_forged_bulk_decision_is_forbidden(viewer_client, inbox):
    response = post(viewer_client, DECIDE, {"selected": ["s-old/a1"], "decision": "approve"}, htmx=True)
    assert response.status_code == 403 and status("s-old", "a1") == "waiting"


def test_a_bulk_decision_without_the_csrf_token_is_refused(approver_client, inbox):
    response = approver_client.post(DECIDE, {"selected": ["s-old/a1"], "decision": "approve"})
    assert response.status_code == 403 and status("s-old", "a1") == "waiting"


def test_without_javascript_a_decision_redirects_to_the_inbox_with_a_message(approver_client, inbox):
    response = post(approver_client, DECIDE, {"selected": "s-old/a1", "decision": "approve", "page": 1})
    assert response.status_code == 302 and response["Location"] == "/p/default/approvals/?page=1"
    assert (
        parse(approver_client.get(response["Location"])).text(".messages")
        == "Approved 1 action: issue_refund (a1) in The older one."
    )


def test_the_list_refreshes_on_a_live_change_and_gets_204_until_the_inbox_changes(approver_client, inbox):
    approvals = parse(approver_client.get(URL)).one("#approval-list")
    assert approvals["hx-trigger"] == "sse:changed"
    poll = approvals["hx-get"]
    assert approver_client.get(poll, headers=HTMX).status_code == 204
    client_actions.open_action("s-old", call_id="a3", name="ship_replacement", arguments={})
    changed = parse(approver_client.get(poll, headers=HTMX))
    assert "ship_replacement a3" in [title.text() for title in changed.all("h2.approval-title")]
    # A poll keeps what the person typed or ticked: the inputs carry hx-preserve.
    for approval in changed.all("li.approval"):
        comment = approval.field("comment")
        assert comment["placeholder"] == "Comment (optional)" and comment.get("hx-preserve") == ""
        assert approval.one("input[type=checkbox].select").get("hx-preserve") == ""


def test_after_a_decision_the_inputs_start_empty(approver_client, inbox):
    page = parse(post(approver_client, DECIDE, {"selected": "s-old/a1", "decision": "approve"}, htmx=True))
    assert page.all("li.approval input") and not page.all("[hx-preserve]")


def test_the_inbox_is_paged_and_deciding_the_last_action_of_a_page_shows_the_page_before(approver_client, db):
    sessions.ensure(agent="bulk", session_id="many")
    for number in range(APPROVALS_PAGE_SIZE + 1):
        client_actions.open_action("many", call_id=f"c{number:03d}", name="step", arguments={"n": number})
    second = parse(approver_client.get(URL, {"page": 2}))
    assert second.text(".page-of").startswith("Page 2 of 2") and len(second.all("li.approval")) == 1
    page = parse(
        post(
            approver_client,
            DECIDE,
            {"selected": f"many/c{APPROVALS_PAGE_SIZE:03d}", "decision": "approve", "page": 2},
            htmx=True,
        )
    )
    assert len(page.all("li.approval")) == APPROVALS_PAGE_SIZE and "Page 2 of" not in page.text()

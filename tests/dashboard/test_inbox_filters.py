"""The approvals page's filters, sorts and grouping: GET parameters that work without JavaScript, kept by the
pages, the live refresh and the decisions, and never reaching into another project (docs/dashboard.md,
"The approvals inbox")."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from historyhub.approvals import policies
from historyhub.dashboard.inbox_page import APPROVALS_PAGE_SIZE
from historyhub.history import client_actions, sessions
from historyhub.history.models import ClientAction
from historyhub.lib import session_keys
from historyhub.projects import administration
from historyhub.projects.models import Role
from tests.support.actors import HTMX, confirm_batch, make_member, post
from tests.support.html import parse

URL = reverse("dashboard:approvals", args=["default"])
DECIDE = reverse("dashboard:decide_selected", args=["default"])


def in_minutes(minutes):
    return (timezone.now() + timedelta(minutes=minutes)).isoformat()


@pytest.fixture
def inbox(db):
    """Three waiting actions of the default project, asked two days, three hours and a moment ago, and one of
    another project that matches every filter but the project."""
    policies.replace(
        "default", [{"name": "support refunds", "agents": ["supportAgent"], "actions": ["issue_refund"]}], actor="tests"
    )
    sessions.ensure(agent="supportAgent", session_id="s-ada", name="Refund for Ada")
    sessions.ensure(agent="billingAgent", session_id="s-chen", name="Invoice for Chen")
    client_actions.open_action(
        "s-chen",
        call_id="invoice",
        name="send_invoice",
        arguments={"to": "chen@example.com"},
        expires_at=in_minutes(30),
    )
    client_actions.open_action(
        "s-ada", call_id="refund", name="issue_refund", arguments={"amount": 750}, description="Above the **limit**"
    )
    client_actions.open_action(
        "s-chen",
        call_id="refund-2",
        name="issue_refund",
        arguments={"amount": 20, "note": "duplicate charge"},
        expires_at=in_minutes(120),
    )
    now = timezone.now()
    ClientAction.objects.filter(call_id="invoice").update(created_at=now - timedelta(days=2))
    ClientAction.objects.filter(call_id="refund").update(created_at=now - timedelta(hours=3))

    administration.create_project("acme", "Acme")
    policies.replace("acme", [{"name": "support refunds", "actions": ["*"]}], actor="tests")
    acme = session_keys.session_key("acme", "s-ada")
    sessions.ensure(agent="supportAgent", project="acme", session_id="s-ada", name="Acme's refund")
    client_actions.open_action(
        acme,
        call_id="acme-refund",
        name="issue_refund",
        arguments={"amount": 750, "note": "duplicate charge"},
        description="Above the limit",
        expires_at=in_minutes(10),
    )
    ClientAction.objects.filter(call_id="acme-refund").update(created_at=now - timedelta(days=3))


def titled(page):
    """The call ids of the cards on a page, in order."""
    return [title.one("code").text() for title in page.all(".approval-title")]


def card(page, call_id):
    [found] = [
        approval for approval in page.all("li.approval") if approval.one(".approval-title code").text() == call_id
    ]
    return found


def call_ids(client, **query):
    response = client.get(URL, query)
    assert response.status_code == 200
    return titled(parse(response))


@pytest.mark.parametrize(
    "query, expected",
    [
        ({}, ["invoice", "refund", "refund-2"]),
        ({"agent": "billingAgent"}, ["invoice", "refund-2"]),
        ({"tool": "issue_refund"}, ["refund", "refund-2"]),
        ({"policy": "support refunds"}, ["refund"]),
        ({"age": "1h"}, ["invoice", "refund"]),
        ({"age": "1d"}, ["invoice"]),
        ({"expiring": "on"}, ["invoice"]),
        ({"q": "duplicate"}, ["refund-2"]),
        ({"q": "LIMIT"}, ["refund"]),
        ({"q": "send_inv"}, ["invoice"]),
        # The session's title: "Refund for Ada"; "Invoice for Chen" holds both the invoice and refund-2.
        ({"q": "ada"}, ["refund"]),
        ({"q": "invoice"}, ["invoice", "refund-2"]),
        ({"tool": "issue_refund", "agent": "supportAgent"}, ["refund"]),
    ],
)
def test_each_filter_narrows_the_waiting_actions_of_the_project(viewer_client, inbox, query, expected):
    assert call_ids(viewer_client, **query) == expected


@pytest.mark.parametrize(
    "sort, expected",
    [
        ("", ["invoice", "refund", "refund-2"]),
        ("newest", ["refund-2", "refund", "invoice"]),
        # Those that never expire come last.
        ("expiring", ["invoice", "refund-2", "refund"]),
    ],
)
def test_the_actions_sort_oldest_first_newest_first_or_expiring_soonest(viewer_client, inbox, sort, expected):
    assert call_ids(viewer_client, sort=sort) == expected


def test_another_projects_actions_never_show_whatever_the_filters(viewer_client, inbox):
    for query in ({}, {"q": "duplicate"}, {"expiring": "on"}, {"age": "1d"}, {"policy": "support refunds"}):
        page = parse(viewer_client.get(URL, query))
        assert "acme-refund" not in page.text("main") and "Acme's refund" not in page.text("main")
    assert call_ids(viewer_client, agent="supportAgent", tool="issue_refund") == ["refund"]


def test_a_member_of_another_project_sees_its_actions_only(inbox):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_member("acme-approver", Role.APPROVER, project="acme"))
    page = parse(client.get(reverse("dashboard:approvals", args=["acme"]), {"tool": "issue_refund"}))
    assert titled(page) == ["acme-refund"]
    assert [option.text() for option in page.all("select[name=agent] option")] == ["Any agent", "supportAgent"]
    assert client.get(URL).status_code == 403


def test_the_filters_offer_what_waits_in_the_project(viewer_client, inbox):
    form = parse(viewer_client.get(URL)).one("form.filters")
    options = {
        name: [option.text() for option in form.all(f"select[name={name}] option")]
        for name in ("agent", "tool", "policy")
    }
    assert options == {
        "agent": ["Any agent", "billingAgent", "supportAgent"],
        "tool": ["Any tool", "issue_refund", "send_invoice"],
        "policy": ["Any policy", "support refunds"],
    }
    assert form["method"] == "get" and form["action"] == URL
    assert [option["value"] for option in form.all("select[name=sort] option")] == ["", "newest", "expiring"]


def test_a_chosen_filter_stays_chosen_when_nothing_it_matches_waits_any_more(viewer_client, inbox):
    response = viewer_client.get(URL, {"tool": "delete_everything"})
    page = parse(response)
    assert not page.all("li.approval") and "No waiting action matches these filters." in page.text("#approval-list")
    assert page.one("select[name=tool] option[selected]")["value"] == "delete_everything"
    assert page.one("details.filter-panel").get("open") == ""


def test_a_value_that_is_not_a_choice_is_left_out(viewer_client, inbox):
    assert call_ids(viewer_client, age="forever", sort="random", group="agent") == ["invoice", "refund", "refund-2"]


def test_grouped_by_tool_each_tool_has_a_heading_with_its_count(viewer_client, inbox):
    page = parse(viewer_client.get(URL, {"group": "tool", "sort": "newest"}))
    groups = page.all("section.approval-group")
    assert [group.text("h2.group-heading") for group in groups] == ["issue_refund 2", "send_invoice 1"]
    assert [titled(group) for group in groups] == [
        ["refund-2", "refund"],
        ["invoice"],
    ]


def test_the_pages_keep_the_filters(viewer_client, inbox):
    sessions.ensure(agent="bulk", session_id="many")
    for number in range(APPROVALS_PAGE_SIZE + 1):
        client_actions.open_action("many", call_id=f"c{number:03d}", name="step", arguments={"n": number})
    first = parse(viewer_client.get(URL, {"tool": "step", "sort": "newest"}))
    assert first.text(".page-of") == f"Page 1 of 2 · {APPROVALS_PAGE_SIZE + 1} matching"
    following = first.link("Next ›")["href"]
    assert parse_qs(urlsplit(following).query) == {"tool": ["step"], "sort": ["newest"], "page": ["2"]}
    second = parse(viewer_client.get(following))
    assert titled(second) == ["c000"]
    assert parse_qs(urlsplit(second.link("‹ Previous")["href"]).query)["tool"] == ["step"]


def test_with_htmx_the_list_alone_answers_and_the_address_bar_gets_the_filters_in_use(viewer_client, inbox):
    response = viewer_client.get(URL, {"tool": "issue_refund", "agent": "", "q": "", "sort": "newest"}, headers=HTMX)
    page = parse(response)
    assert page.children[0]["id"] == "approval-list" and not page.all("form.filters")
    assert response["HX-Push-Url"] == f"{URL}?tool=issue_refund&sort=newest"
    assert titled(page) == ["refund-2", "refund"]


def test_the_live_refresh_keeps_the_filters_and_answers_204_while_what_they_match_is_unchanged(viewer_client, inbox):
    poll = parse(viewer_client.get(URL, {"tool": "issue_refund"})).one("#approval-list")["hx-get"]
    assert parse_qs(urlsplit(poll).query)["tool"] == ["issue_refund"]
    assert viewer_client.get(poll, headers=HTMX).status_code == 204
    # An action the filter leaves out changes nothing the list shows.
    client_actions.open_action("s-ada", call_id="other", name="send_invoice", arguments={})
    assert viewer_client.get(poll, headers=HTMX).status_code == 204
    client_actions.open_action("s-ada", call_id="refund-3", name="issue_refund", arguments={"amount": 5})
    refreshed = parse(viewer_client.get(poll, headers=HTMX))
    assert titled(refreshed) == ["refund", "refund-2", "refund-3"]


def test_a_decision_at_a_card_shows_the_list_with_the_same_filters(approver_client, inbox):
    form = card(parse(approver_client.get(URL, {"tool": "issue_refund"})), "refund").one("form.approval-decision")
    url = reverse("dashboard:decide_action", args=["default", "s-ada", "refund"])
    assert form["action"] == url and form.field("filters")["value"] == "tool=issue_refund"
    response = post(approver_client, url, form.submitted(form.button("Approve")), htmx=True)
    assert titled(parse(response)) == ["refund-2"]
    assert client_actions.get("s-ada", "refund").status == "approved"
    without_script = post(
        approver_client,
        reverse("dashboard:decide_action", args=["default", "s-chen", "refund-2"]),
        {"decision": "reject", "filters": "tool=issue_refund&sort=newest", "page": 1},
    )
    assert without_script.status_code == 302
    assert without_script["Location"] == f"{URL}?tool=issue_refund&sort=newest&page=1"


def test_every_waiting_action_the_filters_match_is_decided_and_no_other(approver_client, inbox):
    asked = post(
        approver_client,
        DECIDE,
        {"all_waiting": "true", "decision": "reject", "filters": "tool=issue_refund"},
        htmx=True,
    )
    confirmation = parse(asked).one("section.confirmation")
    assert [item.one(".confirmation-title code").text() for item in confirmation.all("ol.confirmation-items li")] == [
        "refund",
        "refund-2",
    ]
    assert "Every action waiting now that the filters match, on every page" in confirmation.text()
    assert parse_qs(urlsplit(confirmation.link("Cancel")["href"]).query) == {"tool": ["issue_refund"], "page": ["1"]}
    done = confirm_batch(approver_client, asked)
    assert parse(done).text("#approval-messages") == (
        "Rejected 2 actions: issue_refund (refund) in Refund for Ada, issue_refund (refund-2) in Invoice for Chen."
    )
    assert sorted(action.call_id for action in client_actions.listing("default", status="waiting")) == ["invoice"]
    assert client_actions.get(session_keys.session_key("acme", "s-ada"), "acme-refund").status == "waiting"

"""A client action's card shows its three records side by side (docs/dashboard.md, "Proposed, approved, executed"):
what the agent proposed (with its digest), what was decided (by whom, through which channel, with which edits), and
what was executed (when, not yet, or refused because the claim carried other arguments)."""

import json

import pytest
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.dashboard.action_records import Diff, compare
from historyhub.history import digests
from historyhub.projects.models import Project, Role
from tests.data.test_export import export_lines
from tests.data.test_import import as_text, post_lines
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.html import parse
from tests.support.readers import decision_url

SESSION = "pay-1"
ARGUMENTS = {"vendor": "Acme Ltd", "amount": 4200, "lines": [{"sku": "A-1", "qty": 2}]}
EDITED = {"vendor": "Acme Ltd", "amount": 4000, "lines": [{"sku": "A-1", "qty": 1}], "memo": "capped"}
DIGEST = digests.of(ARGUMENTS)


def short(digest):
    return digest[: len("sha256:") + 12] + "…"


@pytest.fixture
def opened(api):
    assert api.post("sessions", {"sessionId": SESSION, "agent": "payments"}).status_code == 201
    body = {"callId": "c1", "name": "pay_vendor", "arguments": ARGUMENTS}
    assert api.post(f"sessions/{SESSION}/client-actions", body).status_code == 201
    return api


def decide(decide_api, body, call_id="c1"):
    answer = decide_api.post(f"sessions/{SESSION}/client-actions/{call_id}/decision", body)
    assert answer.status_code == 200, answer.content
    return answer.json()


def claim(api, digest, call_id="c1"):
    return api.post(f"sessions/{SESSION}/client-actions/{call_id}/execution", {"argumentsDigest": digest})


def records(client, session_id=SESSION, project="default"):
    """The records block of the session's only client action card, by column."""
    page = parse(client.get(reverse("dashboard:session", args=[project, session_id])))
    [block] = page.all("article.entry .records")
    return {name: block.one(f".record.{name}") for name in ("proposed", "approved", "executed")}


def digest_of(record):
    code = record.one(".digest code")
    return code.text(), code["title"]


def test_a_waiting_action_shows_what_was_proposed_and_that_nothing_was_decided_or_run(opened, viewer_client):
    shown = records(viewer_client)
    assert digest_of(shown["proposed"]) == (short(DIGEST), DIGEST)
    assert '"amount": 4200' in shown["proposed"].one("figure pre.json").exact_text()
    assert shown["approved"].text(".record-state") == "Not yet" and not shown["approved"].all(".record-votes li")
    assert shown["executed"].text(".record-state") == "Not yet"


def test_a_decider_sees_the_proposed_digest_above_the_form_that_holds_the_arguments(opened, approver_client):
    shown = records(approver_client)
    assert digest_of(shown["proposed"])[1] == DIGEST
    assert "in the form below: edit them there" in shown["proposed"].text() and not shown["proposed"].all("figure")


def test_approved_unchanged_shows_one_vote_its_channel_and_the_same_digest(opened, decide_api, viewer_client):
    decide(decide_api, {"decision": "approve"})
    shown = records(viewer_client)
    approved = shown["approved"]
    assert approved.one("dl.resolution").terms()["By"] == "api key: tests (decide)"
    [vote] = approved.all(".record-votes li")
    assert vote.text("strong") == "api key: tests (decide)" and vote.text(".via") == "via api"
    assert digest_of(approved) == (short(DIGEST), DIGEST)
    assert not approved.all(".record-diff") and "as requested" in approved.text("figcaption")
    assert shown["executed"].text(".record-state") == "Not yet"


def test_edited_arguments_show_a_compact_diff_and_the_approved_digest(opened, decide_api, viewer_client):
    decide(decide_api, {"decision": "approve", "arguments": EDITED})
    approved = records(viewer_client)["approved"]
    rows = [
        (row.text("th"), [cell.text() for cell in row.all("td")], row.classes)
        for row in approved.all(".record-diff tbody tr")
    ]
    assert rows == [
        ("amount", ["4200", "4000"], ["changed"]),
        ("lines[0].qty", ["2", "1"], ["changed"]),
        ("memo", ["(absent)", '"capped"'], ["added"]),
    ]
    assert digest_of(approved)[1] == digests.of(EDITED) != DIGEST
    assert approved.text(".record-votes .badge") == "edited"


def test_an_edited_approval_says_so_on_the_cards_collapsed_row_with_its_first_edit(opened, decide_api, viewer_client):
    decide(decide_api, {"decision": "approve", "arguments": EDITED})
    page = parse(viewer_client.get(reverse("dashboard:session", args=["default", SESSION])))
    row = page.one("article.entry details > summary")
    assert row.text(".badge") == "approved" and row.text(".edits") == "edited: amount 4200 → 4000 and 2 more"


@pytest.mark.parametrize(
    "before, after, brief",
    [
        ({"memo": "x"}, {}, "memo removed"),
        ({}, {"memo": "x"}, "memo added"),
        ({"note": "a" * 40}, {"note": "b"}, f'note "{"a" * 22}… → "b"'),
    ],
)
def test_the_brief_of_the_edits_names_the_first_change_and_shortens_its_values(before, after, brief):
    assert Diff(compare(before, after)).brief == brief


def test_an_approval_as_requested_says_nothing_of_edits_on_its_collapsed_row(opened, decide_api, viewer_client):
    decide(decide_api, {"decision": "approve", "arguments": ARGUMENTS})
    page = parse(viewer_client.get(reverse("dashboard:session", args=["default", SESSION])))
    row = page.one("article.entry details > summary")
    assert row.text(".badge") == "approved" and not row.all(".edits")


def test_a_rejection_shows_who_rejected_and_that_it_never_runs(opened, decide_api, viewer_client):
    decide(decide_api, {"decision": "reject", "comment": "Over budget."})
    shown = records(viewer_client)
    assert shown["approved"].one("dl.resolution").terms()["Comment"] == "Over budget."
    assert shown["approved"].text(".record-votes li").startswith("api key: tests (decide) via api: reject")
    assert not shown["approved"].all(".digest") and shown["executed"].text(".record-state") == "Never: it was rejected"


def test_an_executed_action_shows_when(opened, decide_api, viewer_client):
    decide(decide_api, {"decision": "approve"})
    executed_at = claim(opened, DIGEST).json()["executedAt"]
    executed = records(viewer_client)["executed"]
    assert executed.one(".record-state time")["datetime"].startswith(executed_at[:19])
    assert executed.classes == ["record", "executed", "executed-executed"] and not executed.all(".execution-refused")


def test_a_refused_claim_shows_the_digest_it_carried(opened, decide_api, viewer_client):
    decide(decide_api, {"decision": "approve"})
    other = digests.of({**ARGUMENTS, "amount": 99999})
    assert claim(opened, other).status_code == 409
    executed = records(viewer_client)["executed"]
    assert executed.text(".record-state") == "Not yet"
    assert executed.text(".execution-refused").startswith("Execution refused: other arguments (at")
    assert digest_of(executed) == (short(other), other)


def test_an_agents_unconfirmed_report_shows_in_the_decided_record(opened, viewer_client):
    item = {"type": "mcp_approval_response", "approval_request_id": "c1", "approve": True}
    assert opened.post(f"sessions/{SESSION}/items", {"items": [item]}).status_code == 200
    approved = records(viewer_client)["approved"]
    assert "The agent reported: approved (unconfirmed)" in approved.text(".agent-report")
    assert approved.text(".record-state") == "Not yet"


@pytest.fixture
def acme(db):
    """A project with no policy, where an action the agent's own history opened settles as it reports."""
    Project.objects.create(id="acme", name="Acme")
    client = ApiClient(ApiKey.issue("agent", "write", project="acme")[1])
    assert client.post("sessions", {"sessionId": SESSION, "agent": "payments"}).status_code == 201
    return client


def test_a_reported_outcome_shows_its_badge_no_vote_and_cannot_be_claimed(acme):
    items = [
        {"type": "client_action", "callId": "c1", "name": "pay_vendor", "arguments": ARGUMENTS},
        {"type": "client_action", "callId": "c1", "status": "approved"},
    ]
    assert acme.post(f"sessions/{SESSION}/items", {"items": items}).status_code == 200
    viewer = logged_in(make_member("vera", Role.VIEWER, project="acme"))
    shown = records(viewer, project="acme")
    assert shown["approved"].text(".badge.reported") == "reported" and not shown["approved"].all(".record-votes")
    assert shown["executed"].text(".record-state") == "Not claimable here: the agent reported it approved"


def test_an_imported_decision_shows_its_badge_and_the_exported_votes(opened, decide_api):
    decide(decide_api, {"decision": "approve", "arguments": EDITED})
    lines = export_lines(opened)
    Project.objects.create(id="beta", name="Beta")
    importer = ApiClient(ApiKey.issue("importer", "admin", project="beta")[1])
    answer = post_lines(importer, as_text(lines))
    assert answer.status_code == 200, answer.content
    viewer = logged_in(make_member("vera", Role.VIEWER, project="beta"))
    shown = records(viewer, project="beta")
    assert shown["approved"].text(".badge.imported") == "imported"
    assert shown["approved"].text(".record-votes .via") == "via api"
    assert [row.text("th") for row in shown["approved"].all(".record-diff tbody tr")] == [
        "amount",
        "lines[0].qty",
        "memo",
    ]
    assert shown["executed"].text(".record-state") == "Not claimable here: imported"


TWO_APPROVALS = {"name": "two", "agents": ["*"], "actions": ["pay_vendor"], "requiredApprovals": 2}


def test_two_votes_through_different_channels_show_side_by_side(admin_api, opened, decide_api, viewer_client):
    assert admin_api.put("policies", {"items": [TWO_APPROVALS]}).status_code == 200
    body = {"callId": "c2", "name": "pay_vendor", "arguments": ARGUMENTS}
    assert opened.post(f"sessions/{SESSION}/client-actions", body).status_code == 201
    ada = logged_in(make_member("ada", Role.APPROVER))
    assert post(
        ada, decision_url(SESSION, "c2"), {"decision": "approve", "arguments": json.dumps(ARGUMENTS)}
    ).status_code in (200, 302)
    page = parse(viewer_client.get(reverse("dashboard:session", args=["default", SESSION])))
    waiting = [block for block in page.all("article.entry .records") if "1 of 2 approvals" in block.text()]
    assert len(waiting) == 1
    decide(decide_api, {"decision": "approve"}, call_id="c2")
    page = parse(viewer_client.get(reverse("dashboard:session", args=["default", SESSION])))
    [block] = [block for block in page.all("article.entry") if "c2" in block.text("p.muted.small code")]
    votes = [(vote.text("strong"), vote.text(".via")) for vote in block.all(".records .record-votes li")]
    assert votes == [("ada", "via dashboard"), ("api key: tests (decide)", "via api")]

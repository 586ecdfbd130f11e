import json
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from historyhub.audit.models import AuditEntry
from historyhub.history import client_actions, digests
from historyhub.history.action_events import Event
from historyhub.history.models import ClientAction, Item, Session, TimelineEntry
from historyhub.lib import session_keys
from historyhub.notifications.models import Channel, Delivery
from historyhub.projects.models import Group, Membership, Role
from tests.data.sessions import full_session
from tests.data.test_export import export_lines
from tests.support.actors import logged_in, make_member, post
from tests.support.html import parse
from tests.support.items import assistant, function_call, function_output, user
from tests.support.readers import assert_error, decision_url, items_via_api


def post_lines(client, text):
    return client.request("POST", "import", raw=text.encode(), headers={"Content-Type": "application/x-ndjson"})


def as_text(lines):
    return "".join(json.dumps(line) + "\n" for line in lines)


def as_imported(lines):
    """The lines as an export of their import reads: equal line for line, but that every action that was resolved
    is marked imported (docs/data.md, "Import")."""
    marked = json.loads(json.dumps(lines))
    for line in marked:
        for action in line["clientActions"]:
            action["imported"] = action["status"] != "waiting"
    return marked


def test_export_then_import_into_an_empty_project_then_export_is_equal_line_for_line(api, acme, acme_admin, decide_api):
    full_session(api, "parent", {"customerId": "ana"})
    api.post("sessions", {"sessionId": "child", "agent": "a", "parentSessionId": "parent", "parentCallId": "call-1"})
    assert api.patch("sessions/child", {"runStatus": "completed"}).status_code == 200
    compaction = {"items": [{"type": "compaction", "id": "cmp", "encrypted_content": "x"}]}
    assert api.post("sessions/parent/compaction", compaction).status_code == 200
    api.post("sessions/parent/items", {"items": [user("after the compaction")]})
    api.post("sessions/parent/client-actions", {"callId": "call-2", "name": "refund", "arguments": {"a": 1}})
    decision = {"decision": "approve", "comment": "fine"}
    assert decide_api.post("sessions/parent/client-actions/call-2/decision", decision).status_code == 200
    original = export_lines(api)

    response = post_lines(acme_admin, as_text(original))

    assert response.status_code == 200, response.json()
    assert response.json() == {"imported": 2}
    assert export_lines(acme) == as_imported(original)
    assert AuditEntry.objects.get(action="import").details == {"sessionsImported": 2}
    assert items_via_api(acme, "parent")[-1] == user("after the compaction")


def test_a_session_id_the_project_holds_is_a_409_naming_it_and_nothing_is_imported(api, acme, acme_admin):
    api.post("sessions", {"sessionId": "new-one", "agent": "a"})
    api.post("sessions", {"sessionId": "taken", "agent": "a"})
    acme.post("sessions", {"sessionId": "taken", "agent": "b"})
    lines = as_text(export_lines(api))

    response = post_lines(acme_admin, lines)

    assert_error(response, 409, "session_conflict")
    assert "'taken'" in response.json()["error"]["message"]
    assert list(Session.objects.filter(project="acme").values_list("session_id", flat=True)) == ["taken"]
    assert not AuditEntry.objects.filter(action="import").exists()


@pytest.mark.parametrize(
    "text",
    [
        "not json\n",
        '{"session": {}}\n',
        "[1, 2]\n",
    ],
)
def test_a_bad_line_is_a_400_and_nothing_is_imported(acme, acme_admin, text):
    response = post_lines(acme_admin, text)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert not Session.objects.filter(project="acme").exists()


def test_a_bad_item_on_a_later_line_takes_back_the_earlier_lines(api, acme, acme_admin):
    api.post("sessions", {"sessionId": "first", "agent": "a"})
    api.post("sessions", {"sessionId": "second", "agent": "a"})
    first, second = export_lines(api)
    second["items"] = [{"position": 1, "epoch": 0, "item": "not an object"}]

    response = post_lines(acme_admin, as_text([first, second]))

    assert response.status_code == 400
    assert "line 2" in response.json()["error"]["message"]
    assert not Session.objects.filter(project="acme").exists()


def test_only_json_lines_are_accepted_and_only_an_admin_key_may_import(api, read_api, decide_api, admin_api):
    assert admin_api.post("import", {"a": 1}).status_code == 400
    api.post("sessions", {"sessionId": "s1", "agent": "a"})
    lines = as_text(export_lines(api))
    api.delete("sessions/s1")
    for client in (read_api, api, decide_api):
        assert_error(post_lines(client, lines), 403, "forbidden")
    assert not Session.objects.exists()
    assert not AuditEntry.objects.filter(action="import").exists()


def test_an_answered_action_and_its_allowed_responses_come_back_as_exported(api, acme, acme_admin, decide_api):
    api.post("sessions", {"sessionId": "question", "agent": "a"})
    opened = api.post(
        "sessions/question/client-actions",
        {"callId": "q1", "name": "ask", "arguments": {}, "allowedResponses": ["respond", "dismiss"]},
    )
    assert opened.status_code == 201, opened.content
    answer = {"decision": "respond", "response": "Ship it on Monday."}
    assert decide_api.post("sessions/question/client-actions/q1/decision", answer).status_code == 200
    original = export_lines(api)

    assert post_lines(acme_admin, as_text(original)).status_code == 200
    assert export_lines(acme) == as_imported(original)
    action = original[0]["clientActions"][0]
    assert (action["status"], action["response"], action["allowedResponses"]) == (
        "answered",
        "Ship it on Monday.",
        ["respond", "dismiss"],
    )


# The dashboard of an imported session -------------------------------------------------------------------------

SESSION_FIELDS = (
    "epoch",
    "epoch_start",
    "item_count",
    "history_count",
    "waiting_count",
    "waiting_until",
    "usage_json",
    "last_message",
    "run_status",
)
ENTRY_FIELDS = ("epoch", "seq", "order", "key", "type", "call_id", "source_position", "created_at", "data", "text")
ACTION_FIELDS = ("call_id", "status", "epoch", "source_position", "entry_key", "order", "decision", "resolved_at")
ITEM_FIELDS = ("position", "epoch", "data", "undo_json")


START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def at(minute):
    return f"2026-11-02T09:{minute:02}:00Z"


def support_conversation(api, decide_api):
    """A support session over the API: messages, two tool calls, an approval decided before its call ran and one
    still waiting. Every item carries its time, so the timeline's times and durations are the agent's; the server's
    clock stands still at a whole second, as an export (to the millisecond) can tell it."""
    with time_machine.travel(START, tick=False):
        _support_conversation(api, decide_api)


def _support_conversation(api, decide_api):
    api.post("sessions", {"sessionId": "refund", "agent": "support", "metadata": {"customerId": "ana"}})
    first = [
        user("Where is my refund for order 7?", createdAt=at(0)),
        function_call("lookup", "lookup_order", {"order": 7}, createdAt=at(1)),
        function_output("lookup", '{"paid": 40}', createdAt=at(2)),
        function_call("refund", "issue_refund", {"amount": 40}, createdAt=at(3)),
    ]
    assert api.post("sessions/refund/items", {"items": first}).status_code == 200
    opened = {"callId": "refund", "name": "issue_refund", "arguments": {"amount": 40}}
    assert api.post("sessions/refund/client-actions", opened).status_code == 201
    decision = {"decision": "approve", "comment": "within policy"}
    assert decide_api.post("sessions/refund/client-actions/refund/decision", decision).status_code == 200
    then = [
        function_output("refund", "refunded", createdAt=at(5)),
        assistant("Your refund of 40 is on its way.", createdAt=at(6)),
        user("Please also cancel order 8.", createdAt=at(7)),
        function_call("cancel", "cancel_order", {"order": 8}, createdAt=at(8)),
    ]
    assert api.post("sessions/refund/items", {"items": then}).status_code == 200
    waiting = {"callId": "cancel", "name": "cancel_order", "arguments": {"order": 8}, "description": "Cancel it?"}
    assert api.post("sessions/refund/client-actions", waiting).status_code == 201


def dashboard_state(project, session_id="refund"):
    """What the dashboard draws a session from, but ids and the project."""
    key = session_keys.session_key(project, session_id)
    session = Session.objects.get(pk=key)
    return {
        "session": {name: getattr(session, name) for name in SESSION_FIELDS},
        "entries": list(TimelineEntry.objects.filter(session=session).order_by("epoch", "seq").values(*ENTRY_FIELDS)),
        "actions": list(ClientAction.objects.filter(session=session).order_by("call_id").values(*ACTION_FIELDS)),
        "items": list(Item.objects.filter(session=session).order_by("position").values(*ITEM_FIELDS)),
    }


def drawn_timeline(client, project):
    """The session page's timeline as a person reads it: each card's text and state classes."""
    page = parse(client.get(reverse("dashboard:session", args=[project, "refund"])))
    return [(card.text(), card.classes) for card in page.all("article.entry")]


@pytest.fixture
def member_of_both(db):
    person = make_member("ada", Role.ADMIN)
    Membership.objects.create(user=person, project_id="acme", role=Role.ADMIN)
    client = Client()
    client.force_login(person)
    return client


def test_an_imported_session_shows_on_the_dashboard_as_the_original_does(
    api, acme, acme_admin, decide_api, member_of_both
):
    support_conversation(api, decide_api)
    original = export_lines(api)

    assert post_lines(acme_admin, as_text(original)).status_code == 200

    assert dashboard_state("acme") == dashboard_state(session_keys.DEFAULT_PROJECT)
    imported_timeline = drawn_timeline(member_of_both, "acme")
    # The one difference: the card of the action imported resolved says so, by its side and in its executed
    # record (an imported approval can never be claimed here).
    marked = [
        (text.replace(" imported When ", " When ").replace(" Not claimable here: imported ", " Not yet "), classes)
        for text, classes in imported_timeline
    ]
    assert marked == drawn_timeline(member_of_both, session_keys.DEFAULT_PROJECT)
    assert [text for text, _ in imported_timeline if "issue_refund" in text and " imported " in text]
    assert [text for text, _ in imported_timeline if "cancel" in text and "Approve" in text], imported_timeline
    assert acme.get("sessions/refund/history").json()["items"] == api.get("sessions/refund/history").json()["items"]
    assert [session["sessionId"] for session in acme.get("sessions", q="on its way").json()["items"]] == ["refund"]
    assert client_actions.waiting_count("acme") == 1
    assert export_lines(acme) == as_imported(original)


def test_actions_that_items_open_are_opened_by_their_items_and_decided_before_the_item_that_answers(
    api, acme, acme_admin, decide_api
):
    request = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_repo", "arguments": "{}"}
    with time_machine.travel(START, tick=False):
        api.post("sessions", {"sessionId": "tools", "agent": "support"})
        asked = [user("Clean up", createdAt=at(0)), {**request, "createdAt": at(1)}]
        api.post("sessions/tools/items", {"items": asked})
        decision = {"decision": "reject", "comment": "not this one"}
        assert decide_api.post("sessions/tools/client-actions/mcpr_1/decision", decision).status_code == 200
        answer = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": False}
        confirm = {"type": "client_action", "callId": "o1", "name": "confirm", "arguments": {}, "createdAt": at(3)}
        api.post("sessions/tools/items", {"items": [{**answer, "createdAt": at(2)}, confirm]})
    original = export_lines(api)

    assert post_lines(acme_admin, as_text(original)).status_code == 200

    imported = dashboard_state("acme", "tools")
    assert imported == dashboard_state(session_keys.DEFAULT_PROJECT, "tools")
    assert [(action["call_id"], action["source_position"]) for action in imported["actions"]] == [
        ("mcpr_1", 2),
        ("o1", 4),
    ]
    assert export_lines(acme) == as_imported(original)


def test_a_long_log_is_stored_in_writes_no_larger_than_an_append(api, acme, acme_admin, settings):
    settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST = 2
    api.post("sessions", {"sessionId": "long", "agent": "support"})
    for first in (1, 3, 5):
        texts = [f"message {number}" for number in (first, first + 1) if number <= 5]
        batch = {"items": [user(text, createdAt=at(number)) for number, text in enumerate(texts, first)]}
        assert api.post("sessions/long/items", batch).status_code == 200
    original = export_lines(api)

    assert post_lines(acme_admin, as_text(original)).status_code == 200

    assert dashboard_state("acme", "long") == dashboard_state(session_keys.DEFAULT_PROJECT, "long")
    assert Session.objects.get(pk="acme/long").version == Session.objects.get(pk="long").version
    assert export_lines(acme) == as_imported(original)


def test_a_pop_takes_back_an_imported_item_as_it_takes_back_the_original(api, acme, acme_admin, decide_api):
    support_conversation(api, decide_api)
    assert post_lines(acme_admin, as_text(export_lines(api))).status_code == 200

    for client in (api, acme):
        for _ in range(4):
            assert client.post("sessions/refund/items/pop").status_code == 200

    assert dashboard_state("acme") == dashboard_state(session_keys.DEFAULT_PROJECT)
    assert dashboard_state("acme")["session"]["last_message"] == "Where is my refund for order 7?"


def test_an_item_without_a_time_of_its_own_is_taken_to_arrive_when_the_last_thing_before_it_happened(
    api, acme, acme_admin
):
    api.post("sessions", {"sessionId": "untimed", "agent": "support"})
    api.post("sessions/untimed/items", {"items": [user("first")]})
    api.post("sessions/untimed/client-actions", {"callId": "ask", "name": "ask", "arguments": {}})
    api.post("sessions/untimed/items", {"items": [user("second")]})
    [line] = export_lines(api)

    assert post_lines(acme_admin, as_text([line])).status_code == 200

    created, opened = line["session"]["createdAt"], line["clientActions"][0]["createdAt"]
    shown = acme.get("sessions/untimed/history").json()["items"]
    assert [(entry["id"], entry["createdAt"]) for entry in shown] == [
        ("message:1", created),
        ("client-action:ask", opened),
        ("message:3", opened),
    ]


def test_an_import_tells_no_channel_of_the_actions_it_recreates(api, acme, acme_admin, decide_api):
    Channel.objects.create(project_id="acme", kind="webhook", name="ops", events_json=json.dumps(Event.values))
    support_conversation(api, decide_api)

    assert post_lines(acme_admin, as_text(export_lines(api))).status_code == 200
    assert not Delivery.objects.exists()

    acme.post("sessions/refund/client-actions", {"callId": "new", "name": "ask", "arguments": {}})
    assert Delivery.objects.filter(event=Event.OPENED).count() == 1


def test_an_action_name_with_a_control_character_is_a_400_naming_the_line(api, acme, acme_admin):
    api.post("sessions", {"sessionId": "first", "agent": "a"})
    api.post("sessions/first/client-actions", {"callId": "c1", "name": "refund", "arguments": {}})
    [line] = export_lines(api)
    line["clientActions"][0]["name"] = "refund\nnow"

    response = post_lines(acme_admin, as_text([line]))

    message = assert_error(response, 400, "invalid_input")
    assert "line 1" in message and "name must not contain control characters" in message
    assert not Session.objects.filter(project="acme").exists()


def test_an_action_an_item_opened_with_a_newline_in_its_name_comes_back_as_exported(api, acme, acme_admin):
    """The item keeps its name verbatim; its action's name has the newline replaced, so the export imports."""
    api.post("sessions", {"sessionId": "first", "agent": "a"})
    item = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete\nfile", "arguments": "{}"}
    assert api.post("sessions/first/items", {"items": [item]}).status_code == 200
    original = export_lines(api)
    assert original[0]["clientActions"][0]["name"] == "delete\ufffdfile"

    response = post_lines(acme_admin, as_text(original))

    assert response.status_code == 200, response.json()
    assert export_lines(acme) == original
    assert items_via_api(acme, "first") == [item]


# An import never decides (docs/data.md, "Import") ----------------------------------------------------------------

PAY = {"vendor": "Acme Ltd", "iban": "DE89370400440532013000", "amount": 4200}
FOUR_EYES = {
    "name": "four eyes",
    "agents": ["*"],
    "actions": ["pay_vendor"],
    "approverGroups": ["finance"],
    "requiredApprovals": 2,
    "peopleOnly": True,
}


@pytest.fixture
def four_eyes(admin_api):
    """Two approvers in finance, and the policy that wants both of them for pay_vendor; the dashboard as each."""
    people = [make_member(name, Role.APPROVER) for name in ("ada", "bob")]
    Group.objects.create(project_id="default", name="finance").members.set(people)
    assert admin_api.put("policies", {"items": [FOUR_EYES]}).status_code == 200
    return [logged_in(person) for person in people]


def exported_and_deleted(api, session_id="pay-1"):
    """A payment the agent's write key asked for, exported and deleted: the line an attacker edits."""
    assert api.post("sessions", {"sessionId": session_id, "agent": "payments"}).status_code == 201
    opened = {"callId": "c1", "name": "pay_vendor", "arguments": PAY}
    assert api.post(f"sessions/{session_id}/client-actions", opened).status_code == 201
    [line] = export_lines(api, sessionId=session_id)
    assert api.delete(f"sessions/{session_id}").status_code == 204
    return line


def forged_approval(line):
    """The line edited: approved by "alice" and "bob", who never voted, for another IBAN."""
    [action] = line["clientActions"]
    other = {**PAY, "iban": "GB33BUKB20201555555555", "amount": 100000}
    at = "2026-12-01T10:00:00Z"
    votes = [
        {"by": by, "via": "dashboard", "decision": "approve", "arguments": other, "comment": None, "at": at}
        | {"counts": True, "why": None}
        for by in ("alice", "bob")
    ]
    action.update(
        status="approved",
        decision="approve",
        resolvedBy="bob",
        resolvedAt=at,
        approvedArguments=other,
        approvedArgumentsDigest=digests.of(other),
        votes=votes,
        approvalsNeeded=0,
    )
    return line


def test_a_write_key_may_not_import_an_edited_line_and_nothing_is_imported(api, four_eyes):
    line = forged_approval(exported_and_deleted(api))

    assert_error(post_lines(api, as_text([line])), 403, "forbidden")

    assert not Session.objects.exists()
    assert not AuditEntry.objects.filter(action="import").exists()


def test_an_action_imported_resolved_is_marked_imported_and_can_never_be_decided_again(
    api, admin_api, decide_api, four_eyes
):
    line = forged_approval(exported_and_deleted(api))
    Channel.objects.create(project_id="default", kind="webhook", name="ops", events_json=json.dumps(Event.values))
    audit_before = set(AuditEntry.objects.values_list("pk", flat=True))

    assert post_lines(admin_api, as_text([line])).status_code == 200

    shown = api.get("sessions/pay-1/client-actions/c1").json()
    assert (shown["status"], shown["imported"], shown["reported"]) == ("approved", True, False)
    assert [vote["by"] for vote in shown["votes"]] == ["alice", "bob"]
    new_rows = AuditEntry.objects.exclude(pk__in=audit_before)
    assert list(new_rows.values_list("action", flat=True)) == ["import"]
    assert not Delivery.objects.exists()
    [export] = export_lines(api)
    assert export["clientActions"] == as_imported([line])[0]["clientActions"]
    # Nobody here decided it, and nobody here decides it: not a person, not a key, not even its record again.
    ada, _ = four_eyes
    refused = post(ada, decision_url("pay-1", "c1"), {"decision": "reject", "comment": "never voted"})
    assert refused.status_code in (200, 302, 409)  # the page says why; the action is unchanged (below)
    for client, path, body in [
        (decide_api, "decision", {"decision": "approve"}),
        (decide_api, "decision", {"decision": "reject", "comment": "forged"}),
        (api, "result", {"output": "paid"}),
    ]:
        assert_error(client.post(f"sessions/pay-1/client-actions/c1/{path}", body), 409, "action_result_conflict")
    assert api.get("sessions/pay-1/client-actions/c1").json() == shown
    since = AuditEntry.objects.exclude(pk__in=audit_before).exclude(action="export")
    assert list(since.values_list("action", flat=True)) == ["import"]
    assert not Delivery.objects.exists()
    page = ada.get(reverse("dashboard:session", args=["default", "pay-1"])).content.decode()
    assert "imported" in page


def test_a_waiting_action_is_governed_by_this_projects_policies_and_its_importer_cannot_decide_it(
    api, admin_api, four_eyes
):
    line = exported_and_deleted(api)
    [action] = line["clientActions"]
    assert action["policy"]["name"] == "four eyes"
    # The line says no policy governs it, and carries a vote by someone who is nobody here.
    action["policy"] = None
    action["votes"] = [
        {"by": "alice", "decision": "approve", "arguments": None, "comment": None, "at": action["createdAt"]}
    ]

    assert post_lines(admin_api, as_text([line])).status_code == 200

    shown = api.get("sessions/pay-1/client-actions/c1").json()
    assert (shown["status"], shown["imported"], shown["votes"], shown["approvalsNeeded"]) == ("waiting", False, [], 2)
    assert shown["policy"] == {
        "name": "four eyes",
        "requiredApprovals": 2,
        "approverGroups": ["finance"],
        "peopleOnly": True,
    }
    refused = admin_api.post("sessions/pay-1/client-actions/c1/decision", {"decision": "approve"})
    assert_error(refused, 403, "forbidden", "The key that opened this action cannot decide it.")
    # One person is one approval of the two it needs, as for any action of this project.
    ada, bob = four_eyes
    assert post(ada, decision_url("pay-1", "c1"), {"decision": "approve", "comment": ""}).status_code in (200, 302)
    assert api.get("sessions/pay-1/client-actions/c1").json()["approvalsNeeded"] == 1
    assert post(bob, decision_url("pay-1", "c1"), {"decision": "approve", "comment": ""}).status_code in (200, 302)
    decided = api.get("sessions/pay-1/client-actions/c1").json()
    assert (decided["status"], [vote["by"] for vote in decided["votes"]]) == ("approved", ["ada", "bob"])


def test_a_waiting_action_imported_into_another_project_waits_for_its_deciders(api, acme, acme_admin):
    line = exported_and_deleted(api)
    line["clientActions"][0]["votes"] = [
        {"by": "alice", "decision": "approve", "arguments": None, "comment": None, "at": "2026-12-01T10:00:00Z"}
    ]

    assert post_lines(acme_admin, as_text([line])).status_code == 200

    shown = acme.get("sessions/pay-1/client-actions/c1").json()
    assert (shown["status"], shown["votes"], shown["policy"], shown["approvalsNeeded"]) == ("waiting", [], None, 1)
    refused = acme_admin.post("sessions/pay-1/client-actions/c1/decision", {"decision": "approve"})
    assert_error(refused, 403, "forbidden", "The key that opened this action cannot decide it.")


def edit(path, value):
    """An edit of a line: ``path`` is a list of keys into it."""

    def apply(line):
        target = line
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target.get(path[-1])) if callable(value) else value

    return apply


def resolved(line):
    line["clientActions"][0].update(
        status="approved", decision="approve", resolvedBy="ada", resolvedAt="2026-12-01T10:00:00Z"
    )


@pytest.mark.parametrize(
    "change, named",
    [
        (edit(["session", "name"], "n" * 501), "session.name"),
        (edit(["session", "agent"], "a" * 201), "session.agent"),
        (edit(["items", 0, "position"], 2**70), "items[0]"),
        (edit(["items", 0, "epoch"], 2**40), "items[0]"),
        (edit(["items", 0, "epoch"], 2), "items[0]"),
        (edit(["clientActions", 0, "arguments"], {"blob": "x" * 2000}), "clientActions[0].arguments"),
        (edit(["clientActions", 0, "description"], "d" * 2000), "clientActions[0].description"),
        (edit(["clientActions", 0, "name"], "n" * 201), "clientActions[0].name"),
        (edit(["clientActions", 0, "callId"], ""), "clientActions[0].callId"),
        (edit(["clientActions", 0, "responseSchema"], {"type": "object", "properties": {"x": {"type": "date"}}}), ""),
        (edit(["clientActions", 0, "resolvedBy"], "ada"), "clientActions[0] is waiting"),
        (edit(["clientActions", 0, "isError"], "yes"), "clientActions[0]"),
        (lambda line: (resolved(line), edit(["clientActions", 0, "resolvedBy"], "r" * 201)(line)), "resolvedBy"),
        (lambda line: (resolved(line), edit(["clientActions", 0, "decision"], "reject")(line)), "decision"),
        (lambda line: (resolved(line), edit(["clientActions", 0, "comment"], "c" * 2000)(line)), "comment"),
        (lambda line: (resolved(line), edit(["clientActions", 0, "policy"], {"name": "p"})(line)), "policy"),
        (
            lambda line: (
                resolved(line),
                edit(
                    ["clientActions", 0, "votes"],
                    [{"by": "ada", "decision": "approve", "at": "2026-12-01T10:00:00Z"}] * 2,
                )(line),
            ),
            "votes[1].by",
        ),
        (
            edit(["runs"], [{"runId": "r1", "agent": "a", "state": "s", "callIds": ["c1"], "claimedBy": "c" * 201}]),
            "runs",
        ),
    ],
    ids=[
        "session name of 501 characters",
        "agent of 201 characters",
        "position beyond the column",
        "epoch beyond the column",
        "epoch rising faster than positions",
        "arguments over the action limit",
        "description over the action limit",
        "action name of 201 characters",
        "empty call id",
        "response schema outside the subset",
        "waiting action carrying an outcome",
        "isError not a boolean",
        "resolvedBy of 201 characters",
        "decision that does not end it so",
        "comment over the action limit",
        "policy of the wrong shape",
        "a decider voting twice",
        "claimedBy of 201 characters",
    ],
)
def test_a_value_outside_the_apis_rules_is_a_400_naming_its_line_and_nothing_is_imported(
    api, acme, acme_admin, settings, change, named
):
    settings.HISTORYHUB_MAX_ACTION_FIELD_BYTES = 1000
    api.post("sessions", {"sessionId": "fine", "agent": "support"})
    [first] = export_lines(api)
    api.post("sessions", {"sessionId": "edited", "agent": "support"})
    api.post("sessions/edited/items", {"items": [user("hello")]})
    api.post("sessions/edited/client-actions", {"callId": "c1", "name": "ask", "arguments": {}})
    [line] = export_lines(api, sessionId="edited")
    change(line)

    response = post_lines(acme_admin, as_text([first, line]))

    message = assert_error(response, 400, "invalid_input")
    assert message.startswith("line 2: "), message
    assert named in message, message
    assert not Session.objects.filter(project="acme").exists()
    assert not AuditEntry.objects.filter(action="import").exists()


def test_a_line_whose_items_settle_an_action_otherwise_than_it_says_is_refused(api, acme, acme_admin):
    """The agent's own items settled it as rejected; the line says they settled it as approved: refused."""
    api.post("sessions", {"sessionId": "mcp", "agent": "support"})
    request = {"type": "mcp_approval_request", "id": "m1", "name": "delete_repo", "arguments": "{}"}
    api.post("sessions/mcp/items", {"items": [request]})
    api.post(
        "sessions/mcp/items",
        {"items": [{"type": "mcp_approval_response", "approval_request_id": "m1", "approve": False}]},
    )
    [line] = export_lines(api)
    assert (line["clientActions"][0]["status"], line["clientActions"][0]["reported"]) == ("rejected", True)

    assert post_lines(acme_admin, as_text([line])).status_code == 200
    assert acme.get("sessions/mcp/client-actions/m1").json()["reported"] is True
    line["session"]["sessionId"] = "mcp-2"
    line["clientActions"][0].update(status="approved", decision="approve")

    message = assert_error(post_lines(acme_admin, as_text([line])), 400, "invalid_input")
    assert message.startswith("line 1: ") and "'m1'" in message, message
    assert not Session.objects.filter(project="acme", session_id="mcp-2").exists()


def test_a_line_with_far_apart_positions_is_imported_at_once(api, acme, acme_admin):
    """Positions as far apart as a line may put them cost the import nothing: the free ones are stepped over."""
    api.post("sessions", {"sessionId": "far", "agent": "support"})
    api.post("sessions/far/client-actions", {"callId": "c1", "name": "issue_refund", "arguments": {}})
    api.post("sessions/far/items", {"items": [function_call("c1", "issue_refund", "{}"), user("then")]})
    [line] = export_lines(api)
    assert [item["position"] for item in line["items"]] == [2, 3]
    line["items"][0]["position"], line["items"][1]["position"] = 2**40, 2**40 + 1

    assert post_lines(acme_admin, as_text([line])).status_code == 200

    [exported] = export_lines(acme)
    assert [item["position"] for item in exported["items"]] == [2**40, 2**40 + 1]
    assert exported["clientActions"] == line["clientActions"]

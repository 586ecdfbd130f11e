import json
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from historyhub.data.models import AuditEntry
from historyhub.history import client_actions
from historyhub.history.models import ClientAction, Item, Session, TimelineEntry
from historyhub.notifications.event_types import Event
from historyhub.notifications.models import Channel, Delivery
from historyhub.projects import keys
from historyhub.projects.models import Membership, Role
from tests.data.sessions import full_session
from tests.data.test_export import export_lines
from tests.support.actors import make_member
from tests.support.html import parse
from tests.support.items import assistant, function_call, function_output, user
from tests.support.readers import assert_error, items_via_api


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
    key = keys.session_key(project, session_id)
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

    assert dashboard_state("acme") == dashboard_state(keys.DEFAULT_PROJECT)
    imported_timeline = drawn_timeline(member_of_both, "acme")
    # The one difference: the card of the action imported resolved says so.
    marked = [(text.replace(" imported When ", " When "), classes) for text, classes in imported_timeline]
    assert marked == drawn_timeline(member_of_both, keys.DEFAULT_PROJECT)
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
    assert imported == dashboard_state(keys.DEFAULT_PROJECT, "tools")
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

    assert dashboard_state("acme", "long") == dashboard_state(keys.DEFAULT_PROJECT, "long")
    assert Session.objects.get(pk="acme/long").version == Session.objects.get(pk="long").version
    assert export_lines(acme) == as_imported(original)


def test_a_pop_takes_back_an_imported_item_as_it_takes_back_the_original(api, acme, acme_admin, decide_api):
    support_conversation(api, decide_api)
    assert post_lines(acme_admin, as_text(export_lines(api))).status_code == 200

    for client in (api, acme):
        for _ in range(4):
            assert client.post("sessions/refund/items/pop").status_code == 200

    assert dashboard_state("acme") == dashboard_state(keys.DEFAULT_PROJECT)
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

"""A pop takes back everything its item did: popping back to any point leaves the session as if it had only
ever received the remaining items (and the decisions, results and API openings made between them).

The property is checked over many random sequences of items of every dialect, with client actions opened,
decided and given results through the domain between them. Every step runs at its own fixed moment, so times,
durations and decision times compare exactly.
"""

import json
import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from historyhub.approvals import deciding
from historyhub.history import client_actions, item_log, sessions
from historyhub.history.models import ClientAction, Item, Session, TimelineEntry
from historyhub.lib.errors import DomainError
from tests.support.actors import as_approver
from tests.support.items import function_call, function_output, user
from tests.support.readers import timeline

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
SEEDS = range(40)


def at(step):
    return time_machine.travel(START + timedelta(seconds=step), tick=False)


class Script:
    """A random conversation in every dialect, with the decisions and results people and apps give between."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.calls = 0

    def call_id(self):
        self.calls += 1
        return f"call-{self.calls}"

    def items(self):
        """A batch of one to three items."""
        return [self.item() for _ in range(self.rng.randint(1, 3))]

    def item(self):
        rng = self.rng
        kind = rng.choice(
            ["responses", "responses", "agents_js", "chat", "orcha", "orcha_action", "mcp", "reasoning", "usage"]
        )
        if kind == "responses":
            if rng.random() < 0.5:
                return user(rng.choice(["Where is my refund?", "Thanks", ""]))
            call_id = self.call_id()
            return function_call(call_id, "issue_refund", {"amount": rng.randint(1, 900)})
        if kind == "agents_js":
            return {"type": "function_call", "callId": self.call_id(), "name": "lookup", "arguments": "{}"}
        if kind == "chat":
            if rng.random() < 0.5:
                return {"role": "assistant", "content": rng.choice(["Done.", "On it."])}
            tool_call = {"id": self.call_id(), "type": "function", "function": {"name": "search", "arguments": "{}"}}
            return {"role": "assistant", "content": None, "tool_calls": [tool_call]}
        if kind == "orcha":
            return {
                "type": "client_action",
                "callId": self.call_id(),
                "name": "approve_refund",
                "arguments": {"amount": rng.randint(1, 50)},
                "status": "waiting",
            }
        if kind == "orcha_action":
            return {"type": "action", "callId": self.call_id(), "name": "search", "arguments": {}, "status": "running"}
        if kind == "mcp":
            return {
                "type": "mcp_approval_request",
                "id": self.call_id(),
                "name": "delete_repo",
                "arguments": "{}",
                "server_label": "github",
            }
        if kind == "reasoning":
            return {"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}]}
        return {
            "type": "skill",
            "id": f"skill-{self.rng.randint(1, 10**6)}",
            "name": "lookup",
            "usage": {"inputTokens": 3},
        }

    def answer_to(self, call_id, item_type):
        """An item that settles an earlier call, in its dialect."""
        if item_type == "function_call":
            return function_output(call_id, self.rng.choice(["ok", "refunded"]))
        if item_type == "agents_js":
            return {"type": "function_call_result", "callId": call_id, "name": "lookup", "output": "ok"}
        if item_type == "chat":
            return {"role": "tool", "tool_call_id": call_id, "content": "found"}
        if item_type == "client_action":
            return {"type": "client_action", "callId": call_id, "status": "completed", "output": {"done": True}}
        if item_type == "mcp_approval_request":
            return {"type": "mcp_approval_response", "approval_request_id": call_id, "approve": True}
        return {"type": "action", "callId": call_id, "name": "search", "status": "completed", "output": "x"}

    def steps(self, count):
        """``count`` steps: appends, answers to earlier calls, and operations through the domain."""
        open_calls = []
        for _ in range(count):
            roll = self.rng.random()
            if roll < 0.45 or not open_calls:
                batch = self.items()
                for item in batch:
                    call_id = item.get("call_id") or item.get("callId") or item.get("id")
                    kind = item.get("type") if "type" in item else "chat"
                    if item.get("tool_calls"):
                        call_id, kind = item["tool_calls"][0]["id"], "chat"
                    if item.get("type") == "function_call" and "callId" in item:
                        kind = "agents_js"
                    if call_id and kind != "skill":
                        open_calls.append((call_id, kind))
                yield ("append", batch)
            elif roll < 0.6:
                call_id, kind = self.rng.choice(open_calls)
                yield ("append", [self.answer_to(call_id, kind)])
            elif roll < 0.75:
                call_id, _ = self.rng.choice(open_calls)
                yield ("open", call_id)
            elif roll < 0.9:
                call_id, _ = self.rng.choice(open_calls)
                yield ("decide", call_id, self.rng.choice(["approve", "reject"]))
            else:
                call_id, _ = self.rng.choice(open_calls)
                yield ("result", call_id)


def apply(session_id, step, person):
    """Run one step; False when the domain refused it (nothing changed then)."""
    kind = step[0]
    try:
        if kind == "append":
            item_log.append(session_id, step[1], agent="support")
        elif kind == "open":
            client_actions.open_action(session_id, call_id=step[1], name="issue_refund", arguments={"asked": True})
        elif kind == "decide":
            deciding.decide(session_id, step[1], decision=step[2], decider=person)
        else:
            client_actions.supply_result(session_id, step[1], output="done by the app", resolved_by="api key: app")
    except DomainError:
        return False
    return True


def state(session_id):
    """Everything a reader can tell about the session, but its id and the positions things took (positions are
    never reused, so an action opened after items that were popped took a later one: only its rank shows)."""
    session = Session.objects.get(pk=session_id)
    return {
        "session": {
            field: getattr(session, field)
            for field in (
                "item_count",
                "history_count",
                "waiting_count",
                "waiting_until",
                "usage_json",
                "last_message",
                "run_status",
                "epoch",
            )
        },
        "items": [
            json.loads(data)
            for data in Item.objects.filter(session=session).order_by("position").values_list("data", flat=True)
        ],
        "timeline": timeline(session_id),
        "entries": list(
            TimelineEntry.objects.filter(session=session)
            .order_by("epoch", "seq")
            .values_list("epoch", "seq", "key", "type", "call_id", "source_position", "data")
        ),
        "actions": list(
            ClientAction.objects.filter(session=session)
            .order_by("call_id")
            .values(
                "call_id",
                "name",
                "arguments_json",
                "status",
                "decision",
                "comment",
                "approved_arguments_json",
                "output_json",
                "is_error",
                "resolved_by",
                "resolved_at",
                "created_at",
                "entry_key",
                "source_position",
            )
        ),
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_popping_back_to_any_point_leaves_what_the_remaining_items_alone_would_have_made(db, seed):
    person = as_approver()
    steps = list(Script(seed).steps(14))
    sessions.ensure(agent="support", session_id="popped")
    applied = []
    for number, step in enumerate(steps):
        with at(number):
            if apply("popped", step, person):
                applied.append((number, step))
    appended = sum(len(step[1]) for _, step in applied if step[0] == "append")
    keep = random.Random(seed).randint(0, appended)
    with at(len(steps)):
        for _ in range(appended - keep):
            item_log.pop("popped")

    # The same session, made again from the items kept and the other steps that were applied.
    sessions.ensure(agent="support", session_id="fresh")
    sent = 0
    for number, step in applied:
        if step[0] == "append":
            batch = step[1][: max(0, keep - sent)]
            sent += len(step[1])
            if not batch:
                continue
            step = ("append", batch)
        with at(number):
            apply("fresh", step, person)

    assert state("popped") == state("fresh"), f"seed {seed}: {steps}, kept {keep}"


def test_popping_a_client_action_that_gated_a_running_call_leaves_the_call_as_it_was(db):
    """An Orcha action, then the client action that gates it: the pop leaves no stale approval on the card."""
    item_log.append(
        "gated", [{"type": "action", "callId": "c1", "name": "refund", "arguments": {}, "status": "running"}]
    )
    before = timeline("gated")
    item_log.append(
        "gated", [{"type": "client_action", "callId": "c1", "name": "refund", "arguments": {}, "status": "waiting"}]
    )
    [card] = timeline("gated")
    assert card["status"] == "waiting" and "approval" in card

    item_log.pop("gated")

    assert timeline("gated") == before
    assert not ClientAction.objects.filter(session_id="gated").exists()
    assert Session.objects.get(pk="gated").run_status is None

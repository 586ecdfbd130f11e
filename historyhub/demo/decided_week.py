"""A week of decided client actions for the demo, so the Insights page (docs/insights.md) reads like a project's.

The past is written through the import path (docs/data.md, "Import"): an export line keeps a resolved action's
times, outcome and decider as its record, and the replay stores its items as received at those times. So the
sessions, items, tokens and decisions stand on the days they name, counted by Insights like any others, without
touching a timestamp afterwards. Every session has a fixed id; one the project holds already is not imported
again, so writing the demo twice changes nothing the second time. The times are relative to when the demo is
written; everything else comes from a fixed seed.
"""

import random
from datetime import datetime, timedelta
from typing import NamedTuple

from django.utils import timezone

from historyhub.data import importing
from historyhub.history.models import Session
from historyhub.lib import jsonvalues, session_keys
from historyhub.lib.session_keys import DEFAULT_PROJECT
from historyhub.lib.times import format_time

COUNT = 42
SEED = 7
IMPORTED_BY = "demo (seed_demo)"
# The people who decided, by username as resolvedBy names a person: the demo login and two teammates, whom
# seed_demo makes approvers of the project.
DEMO_USERNAME = "demo"
TEAMMATES = ("maria", "tom")
DECIDERS = (DEMO_USERNAME, *TEAMMATES)


class Tool(NamedTuple):
    name: str
    request: str  # what the user asked, and the session's name
    arguments: dict
    edit: dict  # what a decider changed, when the outcome is an edit


# Per agent: its model and the tools that wait for a person.
AGENTS = {
    "supportAgent": (
        "gpt-5-mini",
        [
            Tool(
                "refund",
                "My blender arrived broken, I want my money back.",
                {"orderId": "A-7702", "amount": 640},
                {"amount": 480},
            ),
            Tool(
                "delete_account",
                "Please delete my account and all my data.",
                {"customer": "c-1184"},
                {"keepInvoices": True},
            ),
            Tool(
                "redirect_parcel",
                "Can you send my parcel to the pickup point instead?",
                {"parcel": "PX-88410", "to": "Pickup point 14"},
                {"to": "Pickup point 9"},
            ),
            Tool(
                "send_email",
                "I never got the voucher you promised.",
                {"to": "customer", "template": "apology-voucher"},
                {"template": "apology"},
            ),
        ],
    ),
    "researchAgent": (
        "claude-sonnet-4-5",
        [
            Tool(
                "send_email",
                "Send this week's brief to the policy team.",
                {"to": "policy-team", "subject": "Weekly brief"},
                {"subject": "Weekly brief (draft)"},
            ),
            Tool(
                "buy_report",
                "Get the latest IEA report on heat pumps.",
                {"publisher": "IEA", "price": 180},
                {"price": 0},
            ),
        ],
    ),
    "codingAgent": (
        "gpt-5",
        [
            Tool(
                "run_shell",
                "Apply the pending migrations on staging.",
                {"command": "make migrate"},
                {"command": "make migrate --plan"},
            ),
            Tool(
                "merge_pull_request",
                "Merge the retry fix once CI is green.",
                {"repo": "shop-backend", "number": 412},
                {"squash": True},
            ),
        ],
    ),
}
# How often each outcome comes up, as a busy project's inbox ends.
OUTCOMES = ["approved"] * 10 + ["edited"] * 3 + ["rejected"] * 3 + ["answered"] * 2 + ["dismissed", "expired"]
# Each outcome as an export records it: the decision sent and the status it left (docs/insights.md, "Outcomes":
# an edit is an approve whose approved arguments differ).
RECORDED = {
    "approved": ("approve", "approved"),
    "edited": ("approve", "approved"),
    "rejected": ("reject", "rejected"),
    "answered": ("respond", "answered"),
    "dismissed": ("dismiss", "dismissed"),
}
# How long a person took, in minutes: mostly soon, sometimes after a meeting or the next morning.
WAITS = (2, 4, 6, 9, 15, 25, 40, 70, 120, 240, 480, 900)
EXPIRES_AFTER = timedelta(hours=4)


def write_decided_week() -> int:
    """Import the week's sessions the project does not hold yet; returns how many were imported."""
    lines = [line for session_id, line in _lines(timezone.now().replace(microsecond=0)) if not _held(session_id)]
    if not lines:
        return 0
    return importing.import_lines(DEFAULT_PROJECT, (jsonvalues.dumps(line) for line in lines), actor=IMPORTED_BY)


def _held(session_id):
    return Session.objects.filter(pk=session_keys.session_key(DEFAULT_PROJECT, session_id)).exists()


def _lines(now: datetime):
    chosen = random.Random(SEED)
    week = timedelta(days=7)
    # Every outcome in its share, shuffled: each of them comes up, whatever the seed.
    outcomes = [OUTCOMES[index % len(OUTCOMES)] for index in range(COUNT)]
    chosen.shuffle(outcomes)
    for index, outcome in enumerate(outcomes):
        agent = list(AGENTS)[index % len(AGENTS)]
        model, tools = AGENTS[agent]
        tool = chosen.choice(tools)
        waited = EXPIRES_AFTER if outcome == "expired" else timedelta(minutes=chosen.choice(WAITS))
        # Spread over the week, oldest first, each decided (or expired) at least an hour before now.
        opened = now - week + timedelta(hours=2) + (week - timedelta(hours=18)) * index / COUNT
        opened = min(opened, now - waited - timedelta(hours=1))
        session_id = f"demo-week-{index + 1:02d}"
        yield (
            session_id,
            _line(session_id, agent, model, tool, outcome, opened, opened + waited, chosen),
        )


def _line(session_id, agent, model, tool, outcome, opened, ended, chosen):
    name, arguments = tool.name, tool.arguments
    started = opened - timedelta(minutes=1)
    call_id = f"{session_id}-call"
    action = {
        "callId": call_id,
        "name": name,
        "arguments": arguments,
        "description": f"{name.replace('_', ' ').capitalize()} needs a person's approval.",
        "createdAt": format_time(opened),
        "resolvedAt": format_time(ended),
    }
    if outcome == "expired":
        # The sweep records an expiry at the action's expiresAt, with no decider.
        action.update(status="expired", expiresAt=format_time(ended))
    else:
        decision, status = RECORDED[outcome]
        action.update(status=status, decision=decision, resolvedBy=chosen.choice(DECIDERS))
    if outcome == "edited":
        action["approvedArguments"] = {**arguments, **tool.edit}
    if outcome == "answered":
        action["response"] = "Only after the customer confirms by email."
    items = [
        {"type": "message", "role": "user", "content": tool.request, "createdAt": format_time(started)},
        {
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": jsonvalues.dumps(arguments),
            "createdAt": format_time(opened),
        },
        {
            "type": "function_call_output",
            "call_id": call_id,
            "output": jsonvalues.dumps({"outcome": outcome}),
            "createdAt": format_time(ended),
        },
        {
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "output_text", "text": f"The {name.replace('_', ' ')} was {outcome}."}],
            "usage": {"inputTokens": chosen.randrange(1200, 9000), "outputTokens": chosen.randrange(80, 900)},
            "createdAt": format_time(ended),
        },
    ]
    # Position 3 is free: the action was opened through the API there, after the call it gates.
    logged = [
        {"position": position, "epoch": 0, "item": {"id": f"{session_id}-{position}", **item}}
        for position, item in zip((1, 2, 4, 5), items, strict=True)
    ]
    return {
        "session": {
            "sessionId": session_id,
            "agent": agent,
            "name": tool.request,
            "status": "completed",
            "runStatus": "completed",
            "metadata": {"model": model},
            "createdAt": format_time(started),
            "updatedAt": format_time(ended),
        },
        "items": logged,
        "clientActions": [action],
        "runs": [],
    }

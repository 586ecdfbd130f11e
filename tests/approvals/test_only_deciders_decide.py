"""Property: whatever an agent's items, an import and people and keys voting through every channel do, an action is
approved only by the deciders its policy names (docs/api.md, "Only a decision decides", "A decider is a person or a
key, never a label", "Edited arguments are governed as if they had been asked for").

Each seed plays a random sequence in the project ``acme``: the agent opens actions through the API and through
its items (MCP approval requests, Orcha client actions), reports outcomes in every dialect that can mention one
(an MCP approval response, an Orcha status, a tool output), imports edited exports of its own sessions, and people
and keys vote (sometimes with edited arguments) on the dashboard, in the admin, in Slack and over the API. After
every step, for every action that is approved and neither imported nor reported: it has votes, and the distinct
identities (a person, or a key an operator made) among the eligible approve votes for the approved arguments are
at least the approvals the policy governing those arguments requires. The oracle below states the policies on its
own; it does not ask the code under test.
"""

import json
import random
from io import StringIO
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from historyhub.apikeys.models import ApiKey
from historyhub.approvals.models import Vote
from historyhub.history.models import ClientAction
from historyhub.notifications.models import SlackUserLink
from historyhub.projects.models import Project, Role
from tests.support import slack_clicks
from tests.support.actors import ApiClient, logged_in, make_member, post
from tests.support.html import parse
from tests.support.slack_web_api import SlackWebApi

PROJECT = "acme"
TEAM = {"id": "T0ACME", "domain": "acme"}
BOT_TOKEN, SIGNING_SECRET = "xoxb-property-token", "property-signing-secret"
FINANCE = ("ada", "bob", "cy", "root")
POLICIES = [
    {"name": "four eyes", "actions": ["pay_*"], "approverGroups": ["finance"], "requiredApprovals": 2},
    {
        "name": "three people",
        "actions": ["wire_*"],
        "approverGroups": ["finance"],
        "requiredApprovals": 3,
        "peopleOnly": True,
    },
    {
        "name": "large refunds",
        "actions": ["refund_*"],
        "when": [{"argument": "amount", "op": "gt", "value": 10000}],
        "approverGroups": ["finance"],
        "requiredApprovals": 2,
        "peopleOnly": True,
    },
]


def required(name, arguments):
    """What the project's policies ask of approving ``name`` with ``arguments``: (approvals, people only, finance
    only). Stated here, independently of the code."""
    if name.startswith("pay_"):
        return 2, False, True
    if name.startswith("wire_"):
        return 3, True, True
    amount = arguments.get("amount") if isinstance(arguments, dict) else None
    numeric = isinstance(amount, int | float) and not isinstance(amount, bool)
    if name.startswith("refund_") and numeric and amount > 10000:
        return 2, True, True
    return 1, False, False


@pytest.fixture
def world(db, settings):
    """acme: ada (admin), bob, cy and dan (approvers), root (a superuser); finance is ada, bob, cy and root. Keys:
    the agent's write key, an admin key, a decide key an operator made, and one ada made on the settings page. ada
    and bob are linked to Slack users; Slack's Web API is a local stand-in."""
    Project.objects.create(id=PROJECT, name="Acme")
    people = {name: make_member(name, Role.APPROVER, PROJECT) for name in ("bob", "cy", "dan")}
    people["ada"] = make_member("ada", Role.ADMIN, PROJECT)
    people["root"] = User.objects.create_superuser("root", password="root-password-1")
    admin = ApiClient(ApiKey.issue("acme admin", "admin", project=PROJECT)[1])
    assert admin.put("groups/finance", {"members": list(FINANCE)}).status_code == 200
    assert admin.put("policies", {"items": POLICIES}).status_code == 200
    agent = ApiClient(ApiKey.issue("acme agent", "write", project=PROJECT)[1])
    operator_key = ApiClient(call_command_output("createapikey", "ops bot", "--scope", "decide", "--project", PROJECT))
    adas_page = post(
        logged_in(people["ada"]),
        reverse("dashboard:settings", args=[PROJECT]),
        {"action": "key", "name": "ada's bot", "scopes": ["decide"]},
        project=PROJECT,
    )
    adas_key = ApiClient(parse(adas_page).text("#new-key"))
    slack_users = {"ada": "UADA", "bob": "UBOB"}
    for name, slack_user in slack_users.items():
        SlackUserLink.objects.create(
            user=people[name], team_id=TEAM["id"], slack_user_id=slack_user, created_at=timezone.now()
        )
    with SlackWebApi(BOT_TOKEN) as slack:
        settings.SLACK_API_URL = slack.url + "/"
        settings.SLACK_BOT_TOKEN, settings.SLACK_SIGNING_SECRET = BOT_TOKEN, SIGNING_SECRET
        yield SimpleNamespace(
            people=people,
            admin=admin,
            agent=agent,
            keys={"ops bot": operator_key, "ada's bot": adas_key, "agent": agent},
            slack_users=slack_users,
        )


def call_command_output(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip()


class Scenario:
    def __init__(self, world, seed):
        self.world = world
        self.random = random.Random(seed)
        self.sessions = []
        self.calls = []  # (session id, call id, name, arguments, opened by an item of this dialect or None)
        self.counter = 0

    def next_id(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # The agent ---------------------------------------------------------------------------------------------

    def new_session(self):
        session_id = self.next_id("s")
        assert self.world.agent.post("sessions", {"sessionId": session_id, "agent": "support"}).status_code == 201
        self.sessions.append(session_id)

    def arguments_for(self, name):
        if name.startswith("refund_"):
            return {"order": self.random.randint(1, 99), "amount": self.random.choice([5, 10000, 10001, 250])}
        return {"iban": "DE89370400440532013000", "amount": self.random.choice([10, 4200])}

    def open_through_the_api(self):
        session_id = self.random.choice(self.sessions)
        name = self.random.choice(["pay_vendor", "wire_funds", "refund_order", "send_mail"])
        call_id, arguments = self.next_id("c"), self.arguments_for(name)
        answer = self.world.agent.post(
            f"sessions/{session_id}/client-actions", {"callId": call_id, "name": name, "arguments": arguments}
        )
        assert answer.status_code == 201, answer.content
        self.calls.append((session_id, call_id, name, arguments, None))

    def open_through_items(self):
        session_id = self.random.choice(self.sessions)
        name = self.random.choice(["pay_vendor", "wire_funds", "refund_order", "lookup"])
        call_id, arguments = self.next_id("c"), self.arguments_for(name)
        if self.random.random() < 0.5:
            item = {"type": "mcp_approval_request", "id": call_id, "name": name, "arguments": json.dumps(arguments)}
            dialect = "mcp"
        else:
            item = {"type": "client_action", "callId": call_id, "name": name, "arguments": arguments}
            item["status"] = "waiting"
            dialect = "orcha"
        assert self.world.agent.post(f"sessions/{session_id}/items", {"items": [item]}).status_code == 200
        self.calls.append((session_id, call_id, name, arguments, dialect))

    def report_an_outcome(self):
        session_id, call_id, name, arguments, dialect = self.random.choice(self.calls)
        kind = self.random.choice(["mcp", "orcha", "output"])
        if kind == "mcp":
            item = {"type": "mcp_approval_response", "approval_request_id": call_id, "approve": True}
        elif kind == "orcha":
            item = {"type": "client_action", "callId": call_id, "name": name, "status": "approved"}
        else:
            item = {"type": "function_call_output", "call_id": call_id, "output": "done"}
        assert self.world.agent.post(f"sessions/{session_id}/items", {"items": [item]}).status_code == 200

    def import_an_edited_export(self):
        """The agent's side exports a session, claims in the line that everything was approved by two people, and
        an admin key imports it under a new id: what comes in is marked imported, or waits for its deciders."""
        session_id = self.random.choice(self.sessions)
        exported = self.world.admin.get("export", sessionId=session_id)
        assert exported.status_code == 200
        text = b"".join(exported.streaming_content).decode()
        [line] = [json.loads(each) for each in text.splitlines()]
        new_id = self.next_id("imported-")
        line["session"]["sessionId"] = new_id
        for action in line["clientActions"]:
            action["sessionId"] = new_id
            if action["status"] != "waiting":
                continue
            if self.random.random() < 0.5:
                action["policy"] = None  # a waiting action is governed here, whatever the line says
            elif self.random.random() < 0.5:
                # The attack: the line says two people approved other arguments.
                action.update(
                    status="approved",
                    decision="approve",
                    resolvedBy="alice",
                    resolvedAt=action["createdAt"],
                    approvedArguments={**action["arguments"], "iban": "GB33BUKB20201555555555", "amount": 100000},
                    votes=[
                        {"by": who, "decision": "approve", "at": action["createdAt"], "comment": ""}
                        for who in ("alice", "bob")
                    ],
                )
        answer = self.world.admin.request(
            "POST", "import", raw=json.dumps(line).encode(), headers={"Content-Type": "application/x-ndjson"}
        )
        assert answer.status_code in (200, 400), answer.content
        if answer.status_code == 200:
            self.sessions.append(new_id)
            for action in line["clientActions"]:
                origin = "imported" if action["status"] == "waiting" else None
                self.calls.append((new_id, action["callId"], action["name"], action["arguments"], origin))

    # The deciders ------------------------------------------------------------------------------------------

    def vote(self):
        session_id, call_id, name, arguments, _ = self.random.choice(self.calls)
        decision = "approve" if self.random.random() < 0.9 else "reject"
        edited = None
        if decision == "approve" and name.startswith("refund_") and self.random.random() < 0.3:
            edited = {**arguments, "amount": self.random.choice([5000000, 10000, 10001])}
        channel = self.random.choice(["dashboard", "admin", "slack", "key"])
        if channel == "dashboard":
            person = self.world.people[self.random.choice(list(self.world.people))]
            fields = {"decision": decision}
            if edited is not None:
                fields["arguments"] = json.dumps(edited)
            url = reverse("dashboard:decide_action", args=[PROJECT, session_id, call_id])
            post(logged_in(person), url, fields, project=PROJECT)
        elif channel == "admin":
            root = logged_in(self.world.people["root"])
            root.get("/admin/history/clientaction/")
            selected = ClientAction.objects.filter(session__project=PROJECT, call_id=call_id)
            root.post(
                "/admin/history/clientaction/",
                {"action": decision, "_selected_action": list(selected.values_list("pk", flat=True))},
                headers={"X-CSRFToken": root.cookies["csrftoken"].value},
            )
        elif channel == "slack":
            slack_user = self.random.choice(list(self.world.slack_users.values()))
            key = f"{PROJECT}/{session_id}"
            value = json.dumps({"session": key, "callId": call_id}, separators=(",", ":"))
            payload = {
                "type": "block_actions",
                "user": {"id": slack_user, "username": slack_user.lower(), "team_id": TEAM["id"]},
                "team": TEAM,
                "channel": {"id": "C42"},
                "actions": [{"action_id": decision, "type": "button", "value": value}],
            }
            assert slack_clicks.send(payload, SIGNING_SECRET).status_code == 200
        else:
            key = self.world.keys[self.random.choice(list(self.world.keys))]
            body = {"decision": decision, **({"arguments": edited} if edited is not None else {})}
            key.post(f"sessions/{session_id}/client-actions/{call_id}/decision", body)

    # The property ------------------------------------------------------------------------------------------

    def check(self):
        people = {person.pk: person for person in User.objects.all()}
        actions = ClientAction.objects.filter(session__project=PROJECT).prefetch_related("votes__api_key")
        for action in actions:
            votes = list(action.votes.all())
            if action.imported or action.reported:
                # An import keeps the source's record and never makes a vote here; a report is the agent's word.
                assert not action.reported or (action.policy is None and not votes), action.call_id
                assert action.resolved_by != "agent" or action.reported
                continue
            if action.status != "approved":
                continue
            assert votes, f"{action.call_id} is approved with no vote"
            approved = json.loads(action.approved_arguments_json)
            needed, people_only, finance_only = required(action.name, approved)
            identities = set()
            for vote in votes:
                if vote.decision != "approve" or json.loads(vote.arguments_json) != approved:
                    continue
                identity = eligible_identity(vote, people, people_only, finance_only)
                if identity is not None:
                    identities.add(identity)
            assert len(identities) >= needed, (action.call_id, action.name, approved, identities, needed)


def eligible_identity(vote, people, people_only, finance_only):
    """Who a vote is, if they may decide under the policy: a person (by id: a key a person made counts as them), or
    a key an operator made; None for a vote that may not count."""
    if vote.api_key_id is not None:
        if people_only or vote.api_key.name == "acme agent" or not vote.api_key.allows("decide"):
            return None
        return ("person", vote.user_id) if vote.user_id is not None else ("key", vote.api_key_id)
    if vote.user_id is None:
        return None  # a label with nobody behind it
    person = people[vote.user_id]
    if not person.is_active or (finance_only and person.username not in FINANCE):
        return None
    return ("person", person.pk)


STEPS = ("open_through_the_api", "open_through_items", "report_an_outcome", "import_an_edited_export", "vote")


@pytest.mark.parametrize("seed", range(8))
def test_only_the_deciders_a_policy_names_approve_an_action_whatever_the_agent_imports_or_reports(world, seed):
    scenario = Scenario(world, seed)
    scenario.new_session()
    scenario.open_through_the_api()
    for _ in range(40):
        step = scenario.random.choices(STEPS, weights=(2, 2, 3, 1, 8))[0]
        if step == "open_through_the_api" and scenario.random.random() < 0.2:
            scenario.new_session()
        getattr(scenario, step)()
        scenario.check()
    # The sequence did what it set out to: actions were approved through the decision path, and reports came.
    assert Vote.objects.filter(action__session__project=PROJECT).exists()

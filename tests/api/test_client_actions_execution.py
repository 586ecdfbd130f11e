"""Executing what was approved, once (docs/api.md, "Executing what was approved, once"): the agent's side claims the
execution of an approved action with the digest of the arguments it is about to run; the first claim is 200, every
later one 409 already_executed, a claim with other arguments 409 arguments_mismatch (audited, shown on the card and
announced), and an action no decision approved 409 not_approved."""

import hashlib
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from historyhub.apikeys.models import ApiKey
from historyhub.audit.models import AuditEntry
from historyhub.history import digests
from historyhub.history.action_events import Event
from historyhub.notifications.models import Channel, Delivery
from historyhub.projects.models import Project, Role
from tests.support.actors import ApiClient, KeyedApiClient, logged_in, make_member
from tests.support.readers import assert_error

SESSION = "refunds-7"
ARGUMENTS = {"order": 1234, "amount": 25.0, "note": "für Zoë"}
# What any client computes for ARGUMENTS: keys sorted, 25.0 written as 25, UTF-8 kept.
DIGEST = "sha256:" + hashlib.sha256('{"amount":25,"note":"für Zoë","order":1234}'.encode()).hexdigest()
OTHER = digests.of({**ARGUMENTS, "amount": 2500})


class Project_:
    """The keys of one project, its session, and its actions' paths."""

    def __init__(self, project_id):
        self.id = project_id
        self.api = ApiClient(ApiKey.issue("agent", "write", project=project_id)[1])
        self.decide_api = ApiClient(ApiKey.issue("approvals app", "decide", project=project_id)[1])
        assert self.api.post("sessions", {"sessionId": SESSION, "agent": "refunds"}).status_code == 201

    def path(self, call_id):
        return f"sessions/{SESSION}/client-actions/{call_id}"

    def open(self, call_id, arguments=ARGUMENTS, **fields):
        body = {"callId": call_id, "name": "issue_refund", "arguments": arguments, **fields}
        answer = self.api.post(f"sessions/{SESSION}/client-actions", body)
        assert answer.status_code == 201, answer.content
        return answer.json()

    def approve(self, call_id, arguments=None):
        self.open(call_id)
        body = {"decision": "approve", **({"arguments": arguments} if arguments is not None else {})}
        answer = self.decide_api.post(f"{self.path(call_id)}/decision", body)
        assert answer.status_code == 200, answer.content
        return answer.json()

    def claim(self, call_id, digest=DIGEST, client=None):
        return (client or self.api).post(f"{self.path(call_id)}/execution", {"argumentsDigest": digest})

    def action(self, call_id):
        return self.api.get(self.path(call_id)).json()

    def audit(self, action):
        return list(AuditEntry.objects.filter(project_id=self.id, action=action).order_by("pk"))

    def card(self, call_id):
        items = self.api.get(f"sessions/{SESSION}/history").json()["items"]
        [card] = [item for item in items if item["id"] == f"client-action:{call_id}"]
        return card


def exported(project):
    answer = project.api.get("export")
    assert answer.status_code == 200
    return [json.loads(line) for line in b"".join(answer.streaming_content).decode().splitlines()]


@pytest.fixture(params=["default", "acme"])
def project(request, db):
    Project.objects.get_or_create(id=request.param, defaults={"name": request.param.capitalize()})
    return Project_(request.param)


def test_the_first_claim_is_200_and_records_when(project):
    approved = project.approve("c1")
    assert approved["approvedArgumentsDigest"] == approved["argumentsDigest"] == DIGEST
    assert approved["executedAt"] is None

    answer = project.claim("c1")

    assert answer.status_code == 200, answer.content
    claimed = answer.json()
    assert set(claimed) == {"executedAt", "argumentsDigest"}
    assert claimed["argumentsDigest"] == DIGEST and claimed["executedAt"].endswith("Z")
    assert project.action("c1")["executedAt"] == claimed["executedAt"]
    assert project.card("c1")["executedAt"] == claimed["executedAt"]
    [row] = project.audit("execution.claimed")
    assert (row.actor, row.target) == ("api key: agent", f"{SESSION} / c1")
    assert json.loads(row.details_json) == {"argumentsDigest": DIGEST}


def test_every_later_claim_is_409_already_executed(project):
    project.approve("c1")
    first = project.claim("c1").json()

    message = assert_error(project.claim("c1"), 409, "already_executed")
    assert_error(project.claim("c1", OTHER), 409, "already_executed")

    assert first["executedAt"] in message
    assert project.action("c1")["executedAt"] == first["executedAt"]
    assert len(project.audit("execution.claimed")) == 1
    assert project.audit("execution.refused") == []


def test_the_same_request_with_the_same_idempotency_key_replays_the_first_answer(project):
    project.approve("c1")
    retrying = KeyedApiClient(project.api.key, "claim-c1-once")

    first = project.claim("c1", client=retrying)
    again = project.claim("c1", client=retrying)

    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()
    assert len(project.audit("execution.claimed")) == 1
    # Without the key it is a new claim, and the claim is spent.
    assert_error(project.claim("c1"), 409, "already_executed")


def test_other_arguments_are_refused_recorded_shown_and_announced(project):
    hears = Channel.objects.create(
        project_id=project.id, kind="webhook", name="ops", events_json=json.dumps([Event.EXECUTION_REFUSED])
    )
    Channel.objects.create(project_id=project.id, kind="webhook", name="quiet", events_json=json.dumps([Event.DECIDED]))
    project.approve("c1")
    decided = Delivery.objects.count()

    assert_error(project.claim("c1", OTHER), 409, "arguments_mismatch")

    shown = project.action("c1")
    assert (shown["status"], shown["executedAt"]) == ("approved", None)
    [row] = project.audit("execution.refused")
    assert (row.actor, row.target) == ("api key: agent", f"{SESSION} / c1")
    assert json.loads(row.details_json) == {"argumentsDigest": OTHER, "approvedArgumentsDigest": DIGEST}
    [delivery] = Delivery.objects.all()[decided:]
    assert (delivery.channel_id, delivery.event) == (hears.pk, Event.EXECUTION_REFUSED)
    body = json.loads(delivery.body)
    assert (body["type"], body["data"]["callId"]) == ("client_action.execution_refused", "c1")
    assert body["data"]["clientAction"]["approvedArgumentsDigest"] == DIGEST
    refused_at = project.card("c1")["executionRefusedAt"]
    ana = make_member("ana", Role.APPROVER, project=project.id)
    page = logged_in(ana).get(reverse("dashboard:session", args=[project.id, SESSION]))
    text = page.content.decode()
    assert "Execution refused: other arguments (at" in text
    assert f'datetime="{refused_at[:19]}' in text
    # Nothing ran: the approved arguments may still be claimed.
    assert project.claim("c1").status_code == 200
    assert project.audit("execution.claimed") and len(project.audit("execution.refused")) == 1


def test_an_edited_approval_claims_with_the_edited_arguments_digest(project):
    edited = {**ARGUMENTS, "amount": 20}
    approved = project.approve("c1", arguments=edited)
    assert approved["approvedArgumentsDigest"] == digests.of(edited) != DIGEST

    assert_error(project.claim("c1", DIGEST), 409, "arguments_mismatch")
    answer = project.claim("c1", digests.of(edited))

    assert answer.status_code == 200, answer.content
    assert answer.json()["argumentsDigest"] == digests.of(edited)


@pytest.mark.parametrize("decision", ["reject", "dismiss"])
def test_an_action_not_approved_is_409_not_approved(project, decision):
    project.open("waiting")
    project.open("decided", allowedResponses=["approve", "reject", "dismiss"])
    assert project.decide_api.post(f"{project.path('decided')}/decision", {"decision": decision}).status_code == 200
    audited = AuditEntry.objects.count()

    assert_error(project.claim("waiting"), 409, "not_approved")
    assert_error(project.claim("decided"), 409, "not_approved")

    assert AuditEntry.objects.count() == audited
    assert project.action("waiting")["executedAt"] is project.action("decided")["executedAt"] is None


def test_a_completed_action_is_not_an_approval(project):
    project.open("c1")
    assert project.api.post(f"{project.path('c1')}/result", {"output": "done"}).status_code == 200

    assert_error(project.claim("c1"), 409, "not_approved")


def test_an_outcome_the_agents_items_reported_can_never_be_claimed(db):
    """An ungoverned action the agent's own items opened and settled as approved: reported, never decided here."""
    Project.objects.create(id="acme", name="Acme")
    project = Project_("acme")
    opening = {"type": "mcp_approval_request", "id": "c1", "name": "issue_refund", "arguments": json.dumps(ARGUMENTS)}
    report = {"type": "mcp_approval_response", "approval_request_id": "c1", "approve": True}
    for item in (opening, report):
        assert project.api.post(f"sessions/{SESSION}/items", {"items": [item]}).status_code == 200
    reported = project.action("c1")
    assert (reported["status"], reported["reported"], reported["argumentsDigest"]) == ("approved", True, DIGEST)

    assert_error(project.claim("c1"), 409, "not_approved")
    assert_error(project.claim("c1", reported["approvedArgumentsDigest"] or DIGEST), 409, "not_approved")
    assert project.action("c1")["executedAt"] is None


def test_an_action_imported_approved_can_never_be_claimed_and_its_digests_are_computed_here(project):
    project.approve("c1")
    [line] = exported(project)
    assert project.api.delete(f"sessions/{SESSION}").status_code == 204
    # A line that claims another digest than its arguments have: the digest is what the arguments give, here.
    line["clientActions"][0]["approvedArgumentsDigest"] = OTHER
    admin = ApiClient(ApiKey.issue("admin", "admin", project=project.id)[1])
    imported = admin.request(
        "POST", "import", raw=json.dumps(line).encode(), headers={"Content-Type": "application/x-ndjson"}
    )
    assert imported.status_code == 200, imported.content
    shown = project.action("c1")
    assert (shown["status"], shown["imported"], shown["approvedArgumentsDigest"]) == ("approved", True, DIGEST)

    assert_error(project.claim("c1"), 409, "not_approved")
    assert project.action("c1")["executedAt"] is None


def test_an_execution_exported_is_imported_with_its_action(project):
    project.approve("c1")
    executed_at = project.claim("c1").json()["executedAt"]
    [line] = exported(project)
    assert line["clientActions"][0]["executedAt"] == executed_at
    assert project.api.delete(f"sessions/{SESSION}").status_code == 204
    admin = ApiClient(ApiKey.issue("admin", "admin", project=project.id)[1])

    admin.request("POST", "import", raw=json.dumps(line).encode(), headers={"Content-Type": "application/x-ndjson"})

    assert project.action("c1")["executedAt"] == executed_at
    assert_error(project.claim("c1"), 409, "not_approved")


@pytest.mark.parametrize(
    "body",
    [{}, {"argumentsDigest": None}, {"argumentsDigest": "sha256:ABC"}, {"argumentsDigest": DIGEST.upper()}, {"x": 1}],
)
def test_a_malformed_claim_is_400_and_changes_nothing(project, body):
    project.approve("c1")
    audited = AuditEntry.objects.count()

    answer = project.api.post(f"{project.path('c1')}/execution", body)

    assert assert_error(answer, 400, "invalid_input").startswith("argumentsDigest")
    assert AuditEntry.objects.count() == audited
    assert project.action("c1")["executedAt"] is None


def test_claiming_takes_the_write_scope_and_an_action_that_exists(project):
    project.approve("c1")
    read_only = ApiClient(ApiKey.issue("reader", "read", project=project.id)[1])

    assert_error(project.claim("c1", client=read_only), 403, "forbidden")
    assert_error(project.claim("c1", client=project.decide_api), 403, "forbidden")
    assert_error(project.claim("nobody"), 404, "not_found")
    assert_error(
        project.api.post("sessions/nowhere/client-actions/c1/execution", {"argumentsDigest": DIGEST}),
        404,
        "session_not_found",
    )
    assert project.action("c1")["executedAt"] is None


def test_another_projects_key_cannot_claim_this_projects_action(project):
    project.approve("c1")
    other_id = "other" if project.id != "other" else "acme"
    Project.objects.get_or_create(id=other_id, defaults={"name": "Other"})
    stranger = ApiClient(ApiKey.issue("stranger", "write", project=other_id)[1])

    assert_error(project.claim("c1", client=stranger), 404, "session_not_found")
    assert project.action("c1")["executedAt"] is None


def test_a_get_of_the_execution_path_reads_the_action_whose_call_id_ends_so(project):
    project.open("c1/execution")

    answer = project.api.get(f"{project.path('c1')}/execution")

    assert answer.status_code == 200
    assert answer.json()["callId"] == "c1/execution"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("project_id", ["default", "acme"])
def test_of_eight_racing_claimers_exactly_one_gets_200(project_id):
    Project.objects.get_or_create(id=project_id, defaults={"name": project_id.capitalize()})
    project = Project_(project_id)
    project.approve("c1")
    start = Barrier(8)

    def claim(_):
        client = ApiClient(project.api.key)
        client.client = Client(raise_request_exception=False)
        start.wait()
        try:
            answer = project.claim("c1", client=client)
            return answer.status_code, answer.json()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(claim, range(8)))

    assert Counter(status for status, _ in answers) == {200: 1, 409: 7}
    assert {body["error"]["code"] for status, body in answers if status == 409} == {"already_executed"}
    [won] = [body for status, body in answers if status == 200]
    assert project.action("c1")["executedAt"] == won["executedAt"]
    assert len(project.audit("execution.claimed")) == 1

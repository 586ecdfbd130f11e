"""Signed receipts (docs/api.md, "Receipts"; docs/receipts.md): GET …/client-actions/{callId}/receipt answers a
compact JWS that another JOSE implementation verifies against /.well-known/jwks.json, saying who decided what about
which arguments, when, and whether it ran."""

import base64
import json
from urllib.parse import quote

import jwt
import pytest
import time_machine
from cryptography.exceptions import InvalidSignature
from django.test import Client

from historyhub.apikeys.models import ApiKey
from historyhub.approvals import deciding
from historyhub.approvals.deciders import Decider
from historyhub.audit import chain
from historyhub.audit.models import AuditEntry
from historyhub.history import client_actions, digests
from historyhub.projects.models import Group, Project, Role
from tests.data.test_export import export_lines
from tests.support.actors import ApiClient, make_member
from tests.support.readers import assert_error
from tests.support.receipts import FIELDS, b64decode, b64encode, by_hand, header_of, public_jwk, thumbprint, with_pyjwt

SESSION = "refunds-7"
ARGUMENTS = {"order": 1234, "amount": 25.0}
DIGEST = digests.of(ARGUMENTS)
# Two keys of the tests' own: the one tests/environment.py configures, and the one a rotation puts first.
OLD_KEY = "dGVzdHMtb25seS1yZWNlaXB0LXNpZ25pbmcta2V5ISE="
NEW_KEY = base64.urlsafe_b64encode(b"tests-only-second-receipt-key!!!").decode()


@pytest.fixture
def refunds(api):
    assert api.post("sessions", {"sessionId": SESSION, "agent": "refunds"}).status_code == 201


def path(call_id):
    return f"sessions/{SESSION}/client-actions/{quote(call_id, safe='')}"


def open_action(api, call_id="c1", **fields):
    body = {"callId": call_id, "name": "issue_refund", "arguments": ARGUMENTS, **fields}
    answer = api.post(f"sessions/{SESSION}/client-actions", body)
    assert answer.status_code == 201, answer.content
    return answer.json()


def decide(decide_api, call_id="c1", **decision):
    answer = decide_api.post(f"{path(call_id)}/decision", decision)
    assert answer.status_code == 200, answer.content
    return answer.json()


def jwks():
    answer = Client().get("/.well-known/jwks.json")
    assert answer.status_code == 200
    return answer.json()


def receipt_of(client, call_id="c1"):
    answer = client.get(f"{path(call_id)}/receipt")
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "application/jose"
    return answer.content.decode()


def verified(client, call_id="c1"):
    """The payload, verified twice, independently; both must agree."""
    receipt = receipt_of(client, call_id)
    payload = with_pyjwt(receipt, jwks())
    assert by_hand(receipt, jwks()) == payload
    return payload


def decision_row_hash(call_id="c1"):
    """What auditHash must be: the hash of the decision's audit row in the project's chain."""
    chain.link("default")
    row = AuditEntry.objects.get(action="decision", target=f"{SESSION} / {call_id}")
    assert row.hash.startswith("sha256:")
    return row.hash


def test_an_approval_is_signed_with_every_field_the_contract_lists(api, read_api, decide_api, refunds):
    opened = open_action(api)
    decided = decide(decide_api, decision="approve", comment="within policy")

    receipt = receipt_of(read_api)
    payload = with_pyjwt(receipt, jwks())

    assert list(payload) == FIELDS
    header = header_of(receipt)
    assert (header["alg"], header["kid"]) == ("EdDSA", thumbprint(public_jwk(OLD_KEY)))
    [vote] = payload.pop("votes")
    assert vote == {
        "by": "api key: tests (decide)",
        "via": "api",
        "decision": "approve",
        "argumentsDigest": DIGEST,
        "at": decided["votes"][0]["at"],
    }
    assert payload == {
        "iss": "http://localhost:8000",
        "projectId": "default",
        "sessionId": SESSION,
        "callId": "c1",
        "name": "issue_refund",
        "argumentsDigest": DIGEST,
        "status": "approved",
        "decision": "approve",
        "approvedArgumentsDigest": DIGEST,
        "comment": "within policy",
        "response": None,
        "policy": None,
        "openedAt": opened["createdAt"],
        "resolvedAt": decided["resolvedAt"],
        "executedAt": None,
        "reported": False,
        "imported": False,
        "auditHash": decision_row_hash(),
    }
    assert by_hand(receipt, jwks()) == with_pyjwt(receipt, jwks())


def test_an_edited_approval_names_the_digest_of_the_arguments_approved(api, decide_api, refunds):
    open_action(api)
    edited = {**ARGUMENTS, "amount": 20}
    decide(decide_api, decision="approve", arguments=edited)

    payload = verified(api)

    assert (payload["status"], payload["decision"]) == ("approved", "approve")
    assert payload["argumentsDigest"] == DIGEST
    assert payload["approvedArgumentsDigest"] == digests.of(edited) != DIGEST
    assert [vote["argumentsDigest"] for vote in payload["votes"]] == [digests.of(edited)]


def test_a_rejection_carries_its_comment_and_approves_no_arguments(api, decide_api, refunds):
    open_action(api)
    decide(decide_api, decision="reject", comment="not this customer")

    payload = verified(api)

    assert (payload["status"], payload["decision"], payload["comment"]) == ("rejected", "reject", "not this customer")
    assert payload["approvedArgumentsDigest"] is None
    # A vote without arguments is about the ones the agent asked for.
    assert [(vote["decision"], vote["argumentsDigest"]) for vote in payload["votes"]] == [("reject", DIGEST)]
    assert payload["auditHash"] == decision_row_hash()


def test_an_answer_carries_the_response_and_a_dismissal_none(api, decide_api, refunds):
    responses = ["approve", "reject", "respond", "dismiss"]
    open_action(api, "asked", allowedResponses=responses)
    open_action(api, "dropped", allowedResponses=responses)
    decide(decide_api, "asked", decision="respond", response="refund half")
    decide(decide_api, "dropped", decision="dismiss")

    answered, dismissed = verified(api, "asked"), verified(api, "dropped")

    assert (answered["status"], answered["decision"], answered["response"]) == ("answered", "respond", "refund half")
    assert (dismissed["status"], dismissed["decision"], dismissed["response"]) == ("dismissed", "dismiss", None)
    assert answered["approvedArgumentsDigest"] is dismissed["approvedArgumentsDigest"] is None


def test_several_approvers_each_have_a_vote_and_the_policy_is_named(api, admin_api, refunds):
    people = [make_member(name, Role.APPROVER) for name in ("ada", "bob")]
    Group.objects.create(project_id="default", name="finance").members.set(people)
    policy = {"name": "four eyes", "actions": ["issue_refund"], "approverGroups": ["finance"], "requiredApprovals": 2}
    assert admin_api.put("policies", {"items": [policy]}).status_code == 200
    open_action(api)
    for person in people:
        deciding.decide(SESSION, "c1", decision="approve", decider=Decider.person(person))

    payload = verified(api)

    assert [(vote["by"], vote["via"], vote["argumentsDigest"]) for vote in payload["votes"]] == [
        ("ada", "dashboard", DIGEST),
        ("bob", "dashboard", DIGEST),
    ]
    assert payload["policy"] == {
        "name": "four eyes",
        "requiredApprovals": 2,
        "approverGroups": ["finance"],
        "peopleOnly": False,
    }


def test_executed_at_appears_once_the_execution_is_claimed_and_nothing_else_changes(api, decide_api, refunds):
    open_action(api)
    decide(decide_api, decision="approve")
    before = verified(api)
    assert receipt_of(api) == receipt_of(api)  # the same record, the same receipt, byte for byte

    claimed = api.post(f"{path('c1')}/execution", {"argumentsDigest": DIGEST}).json()
    after = verified(api)

    assert before["executedAt"] is None
    assert after["executedAt"] == claimed["executedAt"] == api.get(path("c1")).json()["executedAt"]
    assert {**after, "executedAt": None} == before


def test_an_outcome_the_agents_items_reported_says_reported_with_no_vote(api, refunds):
    opening = {"type": "mcp_approval_request", "id": "c1", "name": "issue_refund", "arguments": json.dumps(ARGUMENTS)}
    report = {"type": "mcp_approval_response", "approval_request_id": "c1", "approve": True}
    for item in (opening, report):
        assert api.post(f"sessions/{SESSION}/items", {"items": [item]}).status_code == 200

    payload = verified(api)

    assert (payload["status"], payload["reported"], payload["imported"]) == ("approved", True, False)
    assert (payload["votes"], payload["auditHash"]) == ([], None)


def test_an_action_imported_resolved_says_imported_whatever_votes_its_line_claims(api, decide_api, refunds):
    open_action(api)
    decide(decide_api, decision="approve")
    [line] = export_lines(api, sessionId=SESSION)
    Project.objects.create(id="acme", name="Acme")
    importer = ApiClient(ApiKey.issue("importer", "admin", project="acme")[1])
    imported = importer.request(
        "POST", "import", raw=json.dumps(line).encode(), headers={"Content-Type": "application/x-ndjson"}
    )
    assert imported.status_code == 200, imported.content

    payload = verified(importer)

    assert (payload["projectId"], payload["status"], payload["imported"]) == ("acme", "approved", True)
    assert [vote["by"] for vote in payload["votes"]] == ["api key: tests (decide)"]
    # No decision was given in acme: no audit row of one to pin.
    assert payload["auditHash"] is None


def test_a_result_or_the_clock_ends_an_action_without_a_decision(api, refunds):
    with time_machine.travel("2026-12-01T12:00:00Z", tick=False):
        open_action(api, "late", expiresAt="2026-12-01T12:05:00Z")
        open_action(api, "done")
        assert api.post(f"{path('done')}/result", {"output": "ok"}).status_code == 200
        assert_error(api.get(f"{path('late')}/receipt"), 409, "action_result_conflict")

    with time_machine.travel("2026-12-01T12:05:00Z", tick=False):
        expired = verified(api, "late")
        completed = verified(api, "done")
        client_actions.sweep_expired()
        assert verified(api, "late") == expired  # the same once the sweep wrote the expiry down

    assert (expired["status"], expired["decision"], expired["resolvedAt"]) == ("expired", None, "2026-12-01T12:05:00Z")
    assert (completed["status"], completed["decision"], completed["votes"]) == ("completed", None, [])


def test_while_the_action_waits_there_is_no_receipt(api, refunds):
    open_action(api)

    message = assert_error(api.get(f"{path('c1')}/receipt"), 409, "action_result_conflict")

    assert "still waiting" in message


def test_an_unknown_action_or_another_projects_is_404(api, decide_api, refunds):
    open_action(api)
    decide(decide_api, decision="approve")
    Project.objects.create(id="acme", name="Acme")
    stranger = ApiClient(ApiKey.issue("stranger", "read", project="acme")[1])

    assert_error(api.get(f"{path('nope')}/receipt"), 404, "not_found")
    # Another project's session answers as one that exists nowhere (tests/api/test_projects.py walks every endpoint).
    message = assert_error(stranger.get(f"{path('c1')}/receipt"), 404, "session_not_found")
    nowhere = assert_error(
        stranger.get(f"sessions/{SESSION}-nowhere/client-actions/c1/receipt"), 404, "session_not_found"
    )
    assert message == nowhere.replace(f"{SESSION}-nowhere", SESSION)


def test_an_action_whose_own_id_ends_in_receipt_is_read_there_and_has_a_receipt_of_its_own(api, decide_api, refunds):
    open_action(api, "a/receipt")
    decide(decide_api, "a/receipt", decision="reject")

    read = api.get(path("a/receipt"))
    payload = verified(api, "a/receipt")

    assert (read.status_code, read.json()["callId"], read.json()["status"]) == (200, "a/receipt", "rejected")
    assert (payload["callId"], payload["status"]) == ("a/receipt", "rejected")


# A byte to change in each part, chosen so that what is left still parses: only the signature can tell.
CHANGES = {
    0: lambda header: header.find(b"receipt"),  # the typ
    1: lambda payload: payload.find(DIGEST.encode()) + len("sha256:"),  # a digit of the arguments' digest
    2: lambda signature: len(signature) // 2,
}


@pytest.mark.parametrize("part", CHANGES)
def test_a_changed_byte_anywhere_fails_verification(api, decide_api, refunds, part):
    open_action(api)
    decide(decide_api, decision="approve")
    parts = receipt_of(api).split(".")
    changed = bytearray(b64decode(parts[part]))
    at = CHANGES[part](changed)
    changed[at] = ord("0") if changed[at] != ord("0") else ord("1")
    parts[part] = b64encode(bytes(changed))
    forged = ".".join(parts)

    with pytest.raises(jwt.InvalidSignatureError):
        with_pyjwt(forged, jwks())
    with pytest.raises(InvalidSignature):
        by_hand(forged, jwks())


def test_after_a_rotation_old_receipts_still_verify_and_new_ones_name_the_new_key(api, decide_api, refunds, settings):
    open_action(api, "before")
    decide(decide_api, "before", decision="approve")
    old_receipt = receipt_of(api, "before")

    settings.RECEIPT_SIGNING_KEYS = [NEW_KEY, OLD_KEY]
    open_action(api, "after")
    decide(decide_api, "after", decision="approve")
    new_receipt = receipt_of(api, "after")
    published = jwks()

    assert [key["kid"] for key in published["keys"]] == [
        thumbprint(public_jwk(NEW_KEY)),
        thumbprint(public_jwk(OLD_KEY)),
    ]
    assert header_of(old_receipt)["kid"] == thumbprint(public_jwk(OLD_KEY))
    assert header_of(new_receipt)["kid"] == thumbprint(public_jwk(NEW_KEY))
    assert with_pyjwt(old_receipt, published)["callId"] == by_hand(old_receipt, published)["callId"] == "before"
    assert with_pyjwt(new_receipt, published)["callId"] == by_hand(new_receipt, published)["callId"] == "after"
    # The old action's receipt issued now is signed with the new key, and says the same.
    assert with_pyjwt(receipt_of(api, "before"), published) == with_pyjwt(old_receipt, published)
    # Once the old key is dropped, what it signed no longer verifies against the JWKS: retired keys stay listed.
    settings.RECEIPT_SIGNING_KEYS = [NEW_KEY]
    with pytest.raises(KeyError):
        with_pyjwt(old_receipt, jwks())


def test_the_jwks_is_public_cacheable_and_holds_no_private_part(db):
    answer = Client().get("/.well-known/jwks.json")

    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/jwk-set+json"
    cache_control = {part.strip() for part in answer["Cache-Control"].split(",")}
    assert cache_control == {"public", "max-age=300"}
    [key] = answer.json()["keys"]
    assert key == {**public_jwk(OLD_KEY), "kid": thumbprint(public_jwk(OLD_KEY)), "alg": "EdDSA", "use": "sig"}
    assert Client().post("/.well-known/jwks.json").status_code == 405

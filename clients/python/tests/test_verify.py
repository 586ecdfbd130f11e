"""historyhub-verify: a receipt the live server signed, verified as an auditor would, from a file and the JWKS as a
file or a URL; what it proves printed; a changed byte, a key the JWKS does not list or something that is no receipt
refused (exit 1), and a JWKS that cannot be had said so (exit 2)."""

import base64
import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import httpx2
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from historyhub_client.verify import ReceiptError, verify_receipt
from tests.support.ids import unique

COMMAND = str(Path(sys.executable).parent / "historyhub-verify")
ARGUMENTS = {"order": 1234, "amount": 25.0}


def action_path(server, session_id, call_id):
    return f"{server.url}/api/v1/sessions/{session_id}/client-actions/{quote(call_id, safe='')}"


def receipt_of(server, key, session_id, call_id="c1"):
    answer = httpx2.get(
        f"{action_path(server, session_id, call_id)}/receipt", headers={"Authorization": f"Bearer {key}"}, timeout=10
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/jose"
    return answer.text


def jwks_url(server):
    return f"{server.url}/.well-known/jwks.json"


def run(*arguments):
    return subprocess.run([COMMAND, *map(str, arguments)], capture_output=True, text=True, timeout=60)


@pytest.fixture
def decided(hub, people):
    """A session whose action c1 the people's key approved; its id."""
    session_id = unique("receipts")
    hub.create_session("refunds", session_id)
    hub.open_client_action(session_id, "c1", "issue_refund", ARGUMENTS)
    people.decide(session_id, "c1", "approve", comment="within policy")
    return session_id


@pytest.fixture
def saved(tmp_path, server, key, decided):
    """The receipt of ``decided`` and the server's JWKS, saved as files."""
    receipt = tmp_path / "default-c1-receipt.jws"
    receipt.write_text(receipt_of(server, key, decided))
    jwks = tmp_path / "jwks.json"
    jwks.write_text(httpx2.get(jwks_url(server), timeout=10).text)
    return receipt, jwks


def test_a_receipt_verifies_against_the_jwks_file_and_url_and_says_what_it_proves(server, hub, decided, saved):
    receipt, jwks = saved
    action = hub.get_client_action(decided, "c1")
    [key] = json.loads(jwks.read_text())["keys"]

    from_file, from_url = run(receipt, "--jwks", jwks), run(receipt, "--jwks", jwks_url(server))

    assert (from_file.returncode, from_file.stderr) == (0, "")
    assert from_url.returncode == 0, from_url.stderr
    assert from_url.stdout.replace(jwks_url(server), str(jwks)) == from_file.stdout
    lines = from_file.stdout.splitlines()
    assert lines[0] == f"Verified: signed by key {key['kid']} of {jwks}."
    assert any(line.startswith("Issuer      http") and line.endswith(", project default") for line in lines)
    assert f"Session     {decided}" in lines
    assert "Action      c1: issue_refund" in lines
    assert f"Asked       arguments {action['argumentsDigest']}, opened {action['createdAt']}" in lines
    assert f"Outcome     approved (decision: approve), at {action['resolvedAt']}" in lines
    assert f"Approved    arguments {action['argumentsDigest']} (as asked)" in lines
    digest, vote = action["argumentsDigest"], action["votes"][0]
    assert f"Votes       api key: people via api: approve arguments {digest} at {vote['at']}" in lines
    assert "Comment     within policy" in lines
    assert "Executed    not claimed when this receipt was issued" in lines
    assert not any(line.startswith(("Reported", "Imported")) for line in lines)


def test_a_receipt_issued_after_the_claim_says_when_it_ran(tmp_path, server, hub, key, decided, saved):
    digest = hub.get_client_action(decided, "c1")["approvedArgumentsDigest"]
    claimed = hub.request(
        "POST", f"sessions/{decided}/client-actions/c1/execution", {"argumentsDigest": digest}, idempotent=False
    )
    receipt = tmp_path / "after.jws"
    receipt.write_text(receipt_of(server, key, decided))

    done = run(receipt, "--jwks", saved[1])

    assert done.returncode == 0, done.stderr
    assert f"Executed    claimed at {claimed['executedAt']}, once, with the approved arguments' digest" in done.stdout


def test_edited_arguments_and_a_rejection_say_so(tmp_path, server, hub, people, key, saved):
    session_id = unique("receipts")
    hub.create_session("refunds", session_id)
    hub.open_client_action(session_id, "edited", "issue_refund", ARGUMENTS)
    hub.open_client_action(session_id, "refused", "issue_refund", ARGUMENTS)
    people.decide(session_id, "edited", "approve", arguments={**ARGUMENTS, "amount": 20})
    people.decide(session_id, "refused", "reject", comment="not this customer")
    for call_id in ("edited", "refused"):
        (tmp_path / call_id).write_text(receipt_of(server, key, session_id, call_id))

    edited, refused = run(tmp_path / "edited", "--jwks", saved[1]), run(tmp_path / "refused", "--jwks", saved[1])

    approved = hub.get_client_action(session_id, "edited")["approvedArgumentsDigest"]
    assert f"Approved    arguments {approved} (edited: not the arguments asked for)" in edited.stdout.splitlines()
    lines = refused.stdout.splitlines()
    assert refused.returncode == 0 and "Comment     not this customer" in lines
    assert any(line.startswith("Outcome     rejected (decision: reject)") for line in lines)
    assert not any(line.startswith("Approved") for line in lines)


def test_json_prints_the_verified_payload_alone(hub, decided, saved):
    done = run(saved[0], "--jwks", saved[1], "--json")

    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    action = hub.get_client_action(decided, "c1")
    assert (payload["sessionId"], payload["callId"], payload["status"]) == (decided, "c1", "approved")
    assert payload["approvedArgumentsDigest"] == action["approvedArgumentsDigest"]
    assert (payload["reported"], payload["imported"], payload["executedAt"]) == (False, False, None)


def test_a_changed_byte_is_refused(tmp_path, saved):
    header, payload, signature = saved[0].read_text().split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["status"] = "rejected"
    forged_payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    forged = tmp_path / "forged.jws"
    forged.write_text(f"{header}.{forged_payload}.{signature}")

    done = run(forged, "--jwks", saved[1])

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("historyhub-verify: NOT VERIFIED: The signature does not verify")


def test_a_key_the_jwks_does_not_list_is_refused(tmp_path, saved):
    raw = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    other = {"kty": "OKP", "crv": "Ed25519", "x": base64.urlsafe_b64encode(raw).decode().rstrip("="), "kid": "other"}
    jwks = tmp_path / "other-jwks.json"
    jwks.write_text(json.dumps({"keys": [other]}))

    done = run(saved[0], "--jwks", jwks)

    assert done.returncode == 1
    assert "The JWKS lists no key" in done.stderr and "(it lists other)" in done.stderr


@pytest.mark.parametrize(
    "text, says",
    [
        ("not a receipt at all", "This is not a receipt"),
        ("eyJhbGciOiJIUzI1NiJ9.e30.c2ln", "This is not a HistoryHub receipt"),
        ("!!.??.##", "This is not a receipt"),
    ],
)
def test_what_is_no_receipt_is_refused(tmp_path, saved, text, says):
    (tmp_path / "not.jws").write_text(text)

    done = run(tmp_path / "not.jws", "--jwks", saved[1])

    assert done.returncode == 1
    assert done.stderr.startswith(f"historyhub-verify: NOT VERIFIED: {says}")


def test_a_jwks_that_cannot_be_had_is_no_verdict(tmp_path, server, saved):
    (tmp_path / "broken.json").write_text("{not json")
    for source, says in [
        (tmp_path / "missing.json", "could not be read"),
        (tmp_path / "broken.json", "is not JSON"),
        (f"{server.url}/.well-known/no-such-keys.json", "HTTP 404"),
    ]:
        done = run(saved[0], "--jwks", source)
        assert done.returncode == 2, source
        assert done.stderr.startswith("historyhub-verify: cannot check: ") and says in done.stderr, done.stderr


def test_verify_receipt_does_the_same_from_python(server, saved):
    jwks = httpx2.get(jwks_url(server), timeout=10).json()
    receipt = saved[0].read_text()
    header, payload, signature = receipt.split(".")
    middle = len(signature) // 2
    changed = signature[:middle] + ("A" if signature[middle] != "A" else "B") + signature[middle + 1 :]

    verified = verify_receipt(receipt, jwks)

    assert verified.kid == jwks["keys"][0]["kid"]
    assert verified.payload["callId"] == "c1"
    with pytest.raises(ReceiptError, match="The signature does not verify"):
        verify_receipt(f"{header}.{payload}.{changed}", jwks)

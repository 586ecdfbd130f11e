"""Verify a HistoryHub receipt, offline: ``historyhub-verify``.

    historyhub-verify RECEIPT_FILE --jwks JWKS_FILE_OR_URL [--json]

A receipt is a compact JWS (EdDSA, Ed25519) that HistoryHub signs for a client action that is no longer waiting
(``GET …/client-actions/{callId}/receipt``, or Download receipt on its card); the JWKS is the installation's public
keys (``/.well-known/jwks.json``), saved as a file or fetched from its URL. Prints what the receipt proves: who
decided what about which arguments, when, and whether the approved call was claimed for execution; with ``--json``,
the verified payload alone. ``python -m historyhub_client.verify`` is the same command; ``verify_receipt`` does the
same from Python. Needs the ``verify`` extra (``pip install 'historyhub-client[verify]'``: PyJWT with cryptography).

Exit status: 0 verified; 1 the receipt does not verify (a changed byte, a key the JWKS does not list, not a
receipt); 2 it could not be checked (the files cannot be read, the JWKS cannot be fetched or is not a JWKS).
"""

import argparse
import json
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TextIO

import httpx2

jwt: ModuleType | None
try:
    import jwt
except ImportError:  # the verify extra is not installed: main() says so
    jwt = None

ALGORITHM = "EdDSA"
TYPE = "historyhub-receipt+jws"
# The payload's fields, in the order HistoryHub writes them (docs/receipts.md).
FIELDS = (
    "iss",
    "projectId",
    "sessionId",
    "callId",
    "name",
    "argumentsDigest",
    "status",
    "decision",
    "approvedArgumentsDigest",
    "comment",
    "response",
    "votes",
    "policy",
    "openedAt",
    "resolvedAt",
    "executedAt",
    "reported",
    "imported",
    "auditHash",
)
FETCH_SECONDS = 30


class ReceiptError(Exception):
    """The receipt does not verify: tampered with, signed by a key the JWKS does not list, or not a receipt."""


class CannotCheck(Exception):
    """The receipt could not be checked: a file unreadable, the JWKS unreachable or not a JWKS."""


@dataclass(frozen=True)
class VerifiedReceipt:
    kid: str
    payload: dict[str, Any]


def verify_receipt(receipt: str, jwks: Any) -> VerifiedReceipt:
    """The payload of ``receipt`` (compact JWS text) once its signature verifies with the key of ``jwks`` (a JWKS,
    as a dict) that its ``kid`` names; ``ReceiptError`` otherwise, ``CannotCheck`` for a ``jwks`` that is none."""
    if jwt is None:
        raise CannotCheck("historyhub-verify needs PyJWT with cryptography: pip install 'historyhub-client[verify]'")
    receipt = receipt.strip()
    if receipt.count(".") != 2:
        raise ReceiptError("This is not a receipt: a receipt is a compact JWS, three base64url parts joined by dots.")
    try:
        header = jwt.get_unverified_header(receipt)
    except jwt.InvalidTokenError as error:
        raise ReceiptError(f"This is not a receipt: its header cannot be read ({error}).") from None
    if header.get("alg") != ALGORITHM or header.get("typ") != TYPE:
        raise ReceiptError(
            f"This is not a HistoryHub receipt: its header says alg {header.get('alg')!r} and typ "
            f"{header.get('typ')!r}, not {ALGORITHM!r} and {TYPE!r}."
        )
    kid = header.get("kid")
    if not isinstance(kid, str):
        raise ReceiptError("This is not a HistoryHub receipt: its header names no key (kid).")
    key = _key(jwt, jwks, kid)
    try:
        verified = jwt.PyJWS().decode_complete(receipt, key=key, algorithms=[ALGORITHM])
    except jwt.InvalidSignatureError:
        raise ReceiptError(
            f"The signature does not verify: the receipt was changed after it was signed, or key {kid} did not sign it."
        ) from None
    except jwt.InvalidTokenError as error:
        raise ReceiptError(f"This is not a receipt: {error}.") from None
    try:
        payload = json.loads(verified["payload"])
    except ValueError:
        raise ReceiptError("The signature verifies, but what it signs is not JSON: this is not a receipt.") from None
    if not isinstance(payload, dict) or any(field not in payload for field in FIELDS):
        raise ReceiptError("The signature verifies, but what it signs lacks a receipt's fields: this is not a receipt.")
    return VerifiedReceipt(kid, payload)


def _key(jwt: ModuleType, jwks: Any, kid: str) -> Any:
    """The public key ``kid`` names in ``jwks``; an Ed25519 key, or the receipt cannot be one of its."""
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
        raise CannotCheck('The JWKS is not a JWKS: a JSON object with a "keys" list.')
    listed = [key for key in jwks["keys"] if isinstance(key, dict) and key.get("kid") == kid]
    if not listed:
        known = ", ".join(str(key.get("kid")) for key in jwks["keys"] if isinstance(key, dict)) or "none"
        raise ReceiptError(f"The JWKS lists no key {kid!r} (it lists {known}): this receipt was not signed by them.")
    jwk = listed[0]
    if (jwk.get("kty"), jwk.get("crv")) != ("OKP", "Ed25519") or "d" in jwk:
        raise CannotCheck(f"Key {kid} of the JWKS is not a public Ed25519 key (kty OKP, crv Ed25519).")
    try:
        return jwt.PyJWK(jwk, algorithm=ALGORITHM).key
    except jwt.PyJWKError as error:
        raise CannotCheck(f"Key {kid} of the JWKS cannot be read: {error}.") from None


# The command ---------------------------------------------------------------------------------


def load_jwks(source: str) -> Any:
    """The JWKS in a file, or at an http(s) URL."""
    if source.startswith(("http://", "https://")):
        try:
            answer = httpx2.get(source, timeout=FETCH_SECONDS, follow_redirects=True)
        except httpx2.HTTPError as error:
            raise CannotCheck(f"The JWKS could not be fetched from {source}: {error}") from None
        if answer.status_code != 200:
            raise CannotCheck(f"The JWKS could not be fetched from {source}: HTTP {answer.status_code}.")
        text = answer.text
    else:
        text = _read(source, "the JWKS")
    try:
        return json.loads(text)
    except ValueError:
        raise CannotCheck(f"The JWKS at {source} is not JSON.") from None


def _read(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise CannotCheck(f"{what[0].upper()}{what[1:]} could not be read: {error}") from None


def describe(verified: VerifiedReceipt, jwks_source: str) -> str:
    """What the receipt proves, a line a fact."""
    receipt = verified.payload
    lines = [f"Verified: signed by key {verified.kid} of {jwks_source}.", ""]

    def line(label: str, text: str) -> None:
        lines.append(f"{label:<12}{text}")

    line("Issuer", f"{receipt['iss']}, project {receipt['projectId']}")
    line("Session", receipt["sessionId"])
    line("Action", f"{receipt['callId']}: {receipt['name']}")
    line("Asked", f"arguments {receipt['argumentsDigest']}, opened {receipt['openedAt']}")
    decision = f" (decision: {receipt['decision']})" if receipt["decision"] else " (no decision)"
    line("Outcome", f"{receipt['status']}{decision}, at {receipt['resolvedAt']}")
    approved = receipt["approvedArgumentsDigest"]
    if approved is not None:
        same = approved == receipt["argumentsDigest"]
        line("Approved", f"arguments {approved} ({'as asked' if same else 'edited: not the arguments asked for'})")
    for number, vote in enumerate(receipt["votes"]):
        text = f"{vote['by']} via {vote['via']}: {vote['decision']} arguments {vote['argumentsDigest']} at {vote['at']}"
        line("Votes" if number == 0 else "", text)
    if not receipt["votes"]:
        line("Votes", "none: nobody decided it here")
    if receipt["policy"]:
        policy = receipt["policy"]
        groups = ", ".join(policy["approverGroups"]) or "any approver"
        people = ", people only" if policy["peopleOnly"] else ""
        line("Policy", f"{policy['name']!r}: {policy['requiredApprovals']} approval(s) from {groups}{people}")
    if receipt["comment"] is not None:
        line("Comment", receipt["comment"])
    if receipt["response"] is not None:
        line("Response", json.dumps(receipt["response"], ensure_ascii=False))
    if receipt["executedAt"]:
        line("Executed", f"claimed at {receipt['executedAt']}, once, with the approved arguments' digest")
    else:
        line("Executed", "not claimed when this receipt was issued")
    if receipt["reported"]:
        line("Reported", "yes: the agent's own items reported this outcome; it is no decision given in HistoryHub")
    if receipt["imported"]:
        line("Imported", "yes: brought in by an import; its votes are the export's, not decisions made here")
    line("Audit hash", receipt["auditHash"] or "none (no audit row of a decision pins it)")
    return "\n".join(lines)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="historyhub-verify", description=__doc__.splitlines()[0])
    parser.add_argument("receipt", metavar="RECEIPT_FILE", help="the receipt, as downloaded (…-receipt.jws)")
    parser.add_argument(
        "--jwks", required=True, metavar="JWKS_FILE_OR_URL", help="the public keys: a file, or …/.well-known/jwks.json"
    )
    parser.add_argument("--json", action="store_true", help="print the verified payload as JSON, nothing else")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    arguments = parse(argv)
    try:
        verified = verify_receipt(_read(arguments.receipt, "the receipt"), load_jwks(arguments.jwks))
    except ReceiptError as error:
        print(f"historyhub-verify: NOT VERIFIED: {error}", file=err)
        return 1
    except CannotCheck as error:
        print(f"historyhub-verify: cannot check: {error}", file=err)
        return 2
    if arguments.json:
        print(json.dumps(verified.payload, ensure_ascii=False, indent=2), file=out)
    else:
        print(describe(verified, arguments.jwks), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

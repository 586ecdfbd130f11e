"""Receipts checked the way an auditor would, with code that shares nothing with the server's signing (joserfc):
PyJWT, another JOSE library, and the compact serialization taken apart by hand and checked with ``cryptography``."""

import base64
import hashlib
import json

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

# The payload's fields, in the contract's order (docs/api.md, "Receipts").
FIELDS = [
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
]


def b64decode(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def b64encode(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def header_of(receipt):
    return json.loads(b64decode(receipt.split(".")[0]))


def with_pyjwt(receipt, jwks):
    """The payload of a receipt PyJWT verifies against the JWKS key its kid names (PyJWT raises otherwise)."""
    keys = jwt.PyJWKSet.from_dict(jwks)
    key = keys[header_of(receipt)["kid"]]
    verified = jwt.PyJWS().decode_complete(receipt, key=key.key, algorithms=["EdDSA"])
    return json.loads(verified["payload"])


def by_hand(receipt, jwks):
    """The payload of a receipt whose Ed25519 signature ``cryptography`` verifies over its first two parts, with the
    key the header's kid names (``cryptography.exceptions.InvalidSignature`` otherwise)."""
    header_part, payload_part, signature_part = receipt.split(".")
    header = json.loads(b64decode(header_part))
    assert header["alg"] == "EdDSA"
    [jwk] = [key for key in jwks["keys"] if key["kid"] == header["kid"]]
    assert (jwk["kty"], jwk["crv"]) == ("OKP", "Ed25519")
    public_key = Ed25519PublicKey.from_public_bytes(b64decode(jwk["x"]))
    public_key.verify(b64decode(signature_part), f"{header_part}.{payload_part}".encode())
    return json.loads(b64decode(payload_part))


def thumbprint(jwk):
    """RFC 7638: the SHA-256 of the required members, sorted, without white space."""
    members = json.dumps({name: jwk[name] for name in ("crv", "kty", "x")}, separators=(",", ":"), sort_keys=True)
    return b64encode(hashlib.sha256(members.encode()).digest())


def public_jwk(seed_text):
    """The public JWK of a key written as RECEIPT_SIGNING_KEYS holds it, made with ``cryptography`` alone."""
    private = Ed25519PrivateKey.from_private_bytes(b64decode(seed_text.rstrip("=")))
    return {"kty": "OKP", "crv": "Ed25519", "x": b64encode(private.public_key().public_bytes_raw())}

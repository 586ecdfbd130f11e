"""Signed receipts of client actions (docs/receipts.md; the contract in docs/api.md, "Receipts").

A receipt is a compact JWS (RFC 7515) signed with EdDSA (Ed25519) by the first of the installation's receipt keys
(``signing_keys``), its ``kid`` in the protected header, over a JSON payload that says who decided what about
which call: the digests of the arguments asked for, approved and voted for, every vote, the policy, when it opened,
was resolved and was executed, whether the agent only reported it or an import brought it, and the hash of the
audit row that recorded the decision. Anyone with the receipt and the JWKS can check it with any JOSE library.

The payload is made from the stored record alone, its keys in a fixed order, and Ed25519 signatures are
deterministic: the same record always gives the same receipt, byte for byte. A receipt is issued anew (with its
``executedAt``) after the execution is claimed, and only then.
"""

from datetime import datetime

from django.conf import settings
from django.utils import timezone
from joserfc import jws

from historyhub.approvals import reading, signing_keys, votes
from historyhub.approvals.models import Vote
from historyhub.approvals.schemas import ActionPolicyOut
from historyhub.audit import chain
from historyhub.history import digests
from historyhub.history.models import ClientAction, ClientActionStatus
from historyhub.lib import jsonvalues, session_keys
from historyhub.lib.errors import ActionResultConflict
from historyhub.lib.times import format_time

# The media type of a compact JWS (RFC 7515, section 9.2.1), and the receipt's own "typ" (explicit typing, RFC 8725
# section 3.11): a receipt is never mistaken for a token of another kind signed with the same algorithm.
MEDIA_TYPE = "application/jose"
TYPE = "historyhub-receipt+jws"


def issue(key: str, call_id: str, now: datetime | None = None) -> str:
    """The receipt of the action ``call_id`` of the session ``key``, as compact JWS text; 409 while it waits."""
    action = reading.get(key, call_id)
    status = action.status_at(now or timezone.now())
    if status == ClientActionStatus.WAITING:
        raise ActionResultConflict(f"Client action {call_id!r} is still waiting: it has a receipt once it is decided.")
    return sign(payload(action, status))


def sign(claims: dict[str, object]) -> str:
    key = signing_keys.signing_key()
    header = {"alg": signing_keys.ALGORITHM, "kid": key.kid, "typ": TYPE}
    return jws.serialize_compact(header, jsonvalues.dumps(claims).encode(), key, algorithms=[signing_keys.ALGORITHM])


def payload(action: ClientAction, status: ClientActionStatus) -> dict[str, object]:
    """What a receipt says, in the contract's order. ``status`` is the action's as a reader sees it now."""
    project, session_id = session_keys.split(action.session_id)
    expired_by_time = status == ClientActionStatus.EXPIRED and action.is_waiting
    return {
        "iss": settings.HISTORYHUB_PUBLIC_URL,
        "projectId": project,
        "sessionId": session_id,
        "callId": action.call_id,
        "name": action.name,
        "argumentsDigest": action.arguments_digest,
        "status": str(status),
        "decision": action.decision or None,
        "approvedArgumentsDigest": action.approved_arguments_digest,
        "comment": action.comment or None,
        "response": action.response,
        "votes": [_vote(vote, action) for vote in votes.judged(action)],
        "policy": ActionPolicyOut.model_validate(action.policy).model_dump() if action.policy else None,
        "openedAt": format_time(action.created_at),
        # Past its expiresAt, an action is expired whether or not the sweep wrote it down yet; the sweep writes
        # expiresAt as the time it was resolved, so the receipt says the same before and after.
        "resolvedAt": format_time(action.expires_at if expired_by_time else action.resolved_at),
        "executedAt": format_time(action.executed_at),
        "reported": action.reported,
        "imported": action.imported,
        "auditHash": audit_hash_for(action),
    }


def _vote(vote: Vote, action: ClientAction) -> dict[str, object]:
    # A vote that carried no arguments (a reject, a respond) is about the arguments the agent asked for.
    digest = digests.of(vote.arguments) if vote.arguments_json is not None else action.arguments_digest
    return {
        "by": vote.by,
        "via": vote.via,
        "decision": vote.decision,
        "argumentsDigest": digest,
        "at": format_time(vote.at),
    }


def audit_hash_for(action: ClientAction) -> str | None:
    """The ``hash`` of the audit row that recorded the decision of ``action`` (docs/api.md, "The audit log is
    tamper-evident"), so a receipt also pins the log up to that row; None when no decision was given here (a
    reported, imported, expired or result-only action)."""
    project, session_id = session_keys.split(action.session_id)
    return chain.decision_hash(project, f"{session_id} / {action.call_id}", since=action.created_at)

"""The three records a client action's card shows side by side (docs/dashboard.md, "Proposed, approved, executed"):
what the agent proposed, what was approved (by whom, through which channel, with which edits) and what was executed
(when, not yet, or refused because the claim carried other arguments).

Built from the action record and its judged votes (``votes.judge`` has read them for the whole page); the only query
of its own is the refused claim's digest, read from the audit log for an action whose claim was refused.
"""

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from historyhub.approvals import votes
from historyhub.approvals.decisions import Decision
from historyhub.audit.models import AuditEntry
from historyhub.history.client_actions import Audited
from historyhub.history.models import ClientAction
from historyhub.history.models import ClientActionStatus as Status
from historyhub.lib import jsonvalues, session_keys
from historyhub.lib.jsonvalues import JSON

# Arguments above this size (as stored JSON, either version) are not compared on a card: the previews and the full
# arguments' pages show both, and a page of fifty cards never walks megabytes.
DIFF_BYTES = 64_000
# How many changed paths a card lists; the rest are counted.
DIFF_CHANGES = 20
# How much of a changed value a card shows.
VALUE_CHARS = 80
# How much of a changed value the card's collapsed row shows, beside who approved it.
BRIEF_VALUE_CHARS = 24
# How many hex digits the short form of a digest keeps.
SHORT_DIGEST_HEX = 12

ExecutedState = Literal["executed", "not_yet", "never", "not_claimable"]


@dataclass(frozen=True)
class Digest:
    """A digest as a card shows it: a short form to read, the full value to copy or compare."""

    full: str

    @property
    def short(self) -> str:
        algorithm, _, hex_digits = self.full.partition(":")
        if not hex_digits or len(hex_digits) <= SHORT_DIGEST_HEX:
            return self.full
        return f"{algorithm}:{hex_digits[:SHORT_DIGEST_HEX]}…"


def digest(value: str | None) -> Digest | None:
    return Digest(value) if value else None


@dataclass(frozen=True)
class Change:
    """One difference between the proposed and the approved arguments: where, and the value before and after
    (compact JSON, shortened; None where the key is absent)."""

    path: str
    before: str | None
    after: str | None

    @property
    def kind(self) -> str:
        if self.before is None:
            return "added"
        return "removed" if self.after is None else "changed"

    @property
    def brief(self) -> str:
        """The change in a few words: ``amount 4200 → 4000``, ``memo added``, ``note removed``."""
        if self.before is None or self.after is None:
            return f"{self.path} {self.kind}"
        return f"{self.path} {cut(self.before, BRIEF_VALUE_CHARS)} → {cut(self.after, BRIEF_VALUE_CHARS)}"


@dataclass(frozen=True)
class Diff:
    changes: list[Change]
    left_off: int = 0

    @property
    def brief(self) -> str:
        """What the card's collapsed row says of the edits (docs/dashboard.md, "Proposed, approved, executed"):
        the first change, and how many more there are, so that an edited approval reads as one without opening."""
        more = len(self.changes) - 1 + self.left_off
        return self.changes[0].brief + (f" and {more} more" if more else "")


@dataclass(frozen=True)
class VoteRecord:
    by: str
    via: str
    decision: str
    at: datetime
    edited: bool
    # Why the vote no longer counts (the policy's rule), None while it does.
    struck: str | None


@dataclass(frozen=True)
class Executed:
    state: ExecutedState
    text: str
    at: datetime | None = None
    refused_at: datetime | None = None
    # The digest the refused claim carried, when the audit log still holds it.
    refused_digest: Digest | None = None


@dataclass(frozen=True)
class Records:
    proposed_digest: Digest | None
    approved_digest: Digest | None
    votes: list[VoteRecord] = field(default_factory=list)
    # The edits: None when the approved arguments are the proposed ones (or nothing was approved).
    diff: Diff | None = None
    # The arguments were edited but are too large to compare here.
    diff_too_large: bool = False
    executed: Executed | None = None


def cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def shown(value: JSON) -> str:
    return cut(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")), VALUE_CHARS)


def key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def compare(before: JSON, after: JSON, path: str = "") -> list[Change]:
    """Where ``after`` differs from ``before``, leaf by leaf through objects and same-length arrays, in the order of
    ``before`` (new keys last); any other difference is one change of the whole value at ``path``."""
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[Change] = []
        for key, value in before.items():
            if key not in after:
                found.append(Change(key_path(path, key), shown(value), None))
            else:
                found.extend(compare(value, after[key], key_path(path, key)))
        found.extend(
            Change(key_path(path, key), None, shown(value)) for key, value in after.items() if key not in before
        )
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            change
            for index, pair in enumerate(zip(before, after, strict=True))
            for change in compare(*pair, f"{path}[{index}]")
        ]
    if jsonvalues.equal(before, after):
        return []
    return [Change(path or "(all arguments)", shown(before), shown(after))]


def diff(action: ClientAction) -> Diff | None:
    """The edits a person made before approving, or None when there are none or they are too large to compare."""
    changes = compare(action.arguments, action.approved_arguments)
    if not changes:
        return None
    return Diff(changes[:DIFF_CHANGES], left_off=max(len(changes) - DIFF_CHANGES, 0))


def vote_records(action: ClientAction) -> list[VoteRecord]:
    records = []
    for vote in votes.judged(action):
        edited = (
            vote.decision == Decision.APPROVE
            and vote.arguments_json is not None
            and not getattr(vote, "for_original", False)
            and vote.arguments_json != action.arguments_json
            and not jsonvalues.equal(vote.arguments, action.arguments)
        )
        records.append(VoteRecord(vote.by, vote.via, vote.decision, vote.at, edited, vote.why))
    return records


def refused_digest(action: ClientAction) -> Digest | None:
    """The digest of the last claim refused for ``action``, as its audit row keeps it (gone once pruned)."""
    project_id, session_id = session_keys.split(action.session_id)
    row = (
        AuditEntry.objects.filter(
            project_id=project_id, action=Audited.EXECUTION_REFUSED, target=f"{session_id} / {action.call_id}"
        )
        .order_by("-at", "-pk")
        .first()
    )
    if row is None:
        return None
    details = jsonvalues.loads(row.details_json)
    value = details.get("argumentsDigest") if isinstance(details, dict) else None
    return digest(value) if isinstance(value, str) else None


def executed(action: ClientAction, state: str) -> Executed:
    """What the executed record says: when it was claimed, or why it was not (yet), and a refused claim."""
    refused_at = action.execution_refused_at
    refused = refused_digest(action) if refused_at is not None else None
    if action.executed_at is not None:
        return Executed("executed", "Executed", at=action.executed_at, refused_at=refused_at, refused_digest=refused)
    if state == Status.APPROVED and (action.reported or action.imported):
        why = "the agent reported it approved" if action.reported else "imported"
        return Executed("not_claimable", f"Not claimable here: {why}")
    if state in (Status.APPROVED, Status.WAITING):
        return Executed("not_yet", "Not yet", refused_at=refused_at, refused_digest=refused)
    if state in (Status.COMPLETED, Status.FAILED):
        return Executed("never", "No claim: the client application supplied the result")
    return Executed("never", f"Never: it was {state}")


def records(action: ClientAction, state: str, edited: bool) -> Records:
    """The three records of ``action`` as it reads in ``state`` (its status now: an expiry shows by itself)."""
    too_large = max(action.arguments_bytes, len(action.approved_arguments_json or "")) > DIFF_BYTES
    return Records(
        proposed_digest=digest(action.arguments_digest),
        approved_digest=digest(action.approved_arguments_digest),
        votes=vote_records(action),
        diff=diff(action) if edited and not too_large else None,
        diff_too_large=edited and too_large,
        executed=executed(action, state),
    )

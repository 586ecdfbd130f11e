"""What the session page shows: chunks of a session's timeline, one card per
entry, and the cursor a poll compares to answer "nothing new" cheaply.

A chunk is addressed by its epoch and the highest seq it holds ("until"), not
by page number, so "Load older" keeps loading the right entries while new
ones arrive at the other end.
"""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Max
from django.urls import reverse
from django.utils import timezone

from historyhub.approvals import deciders, eligibility, votes
from historyhub.approvals.decisions import Decision, buttons_for
from historyhub.dashboard import action_records, json_preview
from historyhub.dashboard.forms import DecisionForm
from historyhub.history import client_action_cards, history_pages, item_log
from historyhub.history.models import ClientAction, TimelineEntry
from historyhub.lib import hidden_characters, jsonvalues, session_keys, validation
from historyhub.lib.errors import InvalidInput

CHUNK_SIZE = 30
# Statuses that have a colour; anything else an agent writes is shown as text only.
KNOWN_STATUSES = {
    "running",
    "waiting",
    "paused",
    "completed",
    "failed",
    "approved",
    "rejected",
    "answered",
    "dismissed",
    "expired",
}


def epoch_size(session, epoch):
    """How many seqs an epoch spans: the session counts the current one; an archived one ends at its highest seq."""
    if epoch == session.epoch:
        return session.history_count
    return TimelineEntry.objects.filter(session=session, epoch=epoch).aggregate(top=Max("seq"))["top"] or 0


@dataclass(frozen=True)
class Compaction:
    """What the marker where a compaction began an epoch says of it: the summary the agent's compaction item
    holds, if it is readable (the Responses API's ``encrypted_content`` is for the model alone)."""

    summary: str
    encrypted: bool


def compaction_of(item):
    """The marker's Compaction for a compaction item (None: no item found)."""
    if item is None:
        return None
    summary = item.get("summary")
    if isinstance(summary, list):
        # Reasoning's shape: [{"type": "summary_text", "text": …}, …].
        summary = "\n\n".join(
            part["text"] for part in summary if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    summary = summary.strip() if isinstance(summary, str) else ""
    return Compaction(summary=summary, encrypted=not summary and bool(item.get("encrypted_content")))


@dataclass
class Chunk:
    session: object
    epoch: int
    low: int
    high: int
    size: int
    cards: list
    # Above the first entry of an epoch a compaction began: the marker, and the archived epoch's newest chunk
    # (folded, to open by choice), unless that is to be loaded on demand (None).
    compaction: Compaction | None = None
    archived: "Chunk | None" = None

    @property
    def older_until(self):
        return self.low if self.low > 0 else None

    @property
    def archived_epoch(self):
        """The epoch a compaction archived just before this one, shown above this epoch's first entry."""
        return self.epoch - 1 if self.low == 0 and self.epoch > 0 else None

    @property
    def is_archived(self):
        return self.epoch < self.session.epoch

    @property
    def is_latest(self):
        return self.epoch == self.session.epoch and self.high >= self.size

    @property
    def newer_until(self):
        return min(self.high + CHUNK_SIZE, self.size) if self.high < self.size else None

    @property
    def cursor(self):
        return Cursor(
            version=self.session.version,
            epoch=self.epoch,
            seq=self.high,
            pk=max((card["pk"] for card in self.cards), default=0),
        )


def read_chunk(session, epoch=None, until=None, with_archive=True):
    """Up to CHUNK_SIZE entries of an epoch ending at seq ``until`` (the newest ones by default).

    The chunk that starts an epoch a compaction began has its marker and, ``with_archive``, the newest
    chunk of the epoch it archived: one epoch back, not every one (earlier ones load on demand).
    """
    epoch = session.epoch if epoch is None else epoch
    size = epoch_size(session, epoch)
    high = size if until is None else min(until, size)
    low = max(0, high - CHUNK_SIZE)
    entries = list(history_pages.entries_between(session, epoch, low, high)) if high else []
    chunk = Chunk(session, epoch, low, high, size, cards(session, entries))
    if chunk.archived_epoch is not None:
        chunk.compaction = compaction_of(item_log.compaction_item(session, epoch))
        if with_archive:
            chunk.archived = read_chunk(session, chunk.archived_epoch, with_archive=False)
    return chunk


@dataclass(frozen=True)
class Cursor:
    """What a page already shows: the session version, its epoch, the newest seq and the newest entry's pk.

    Entries of a session are created one writer at a time, so an entry made
    after the page was drawn has a larger pk than any entry it shows.
    """

    version: int
    epoch: int
    seq: int
    pk: int

    @property
    def query(self):
        return urlencode({"since": self.version, "epoch": self.epoch, "seq": self.seq, "pk": self.pk})


@dataclass
class Changes:
    cursor: Cursor
    appended: list
    changed: list
    rebuilt: Chunk | None = None


def changes_since(session, cursor):
    """What changed in the newest part of the timeline since the cursor, or a rebuilt newest chunk.

    Entries that appear after the newest one are appended and entries that
    changed are replaced. When entries were removed or re-made (pop, truncation,
    compaction), or more arrived than a chunk holds, the newest chunk is drawn
    again instead.
    """
    if session.epoch != cursor.epoch or not 0 <= session.history_count - cursor.seq <= CHUNK_SIZE:
        return rebuild(session)
    changed = list(
        TimelineEntry.objects.filter(session=session, epoch=session.epoch, changed_version__gt=cursor.version).order_by(
            "seq"
        )
    )
    if any(entry.seq <= cursor.seq and entry.pk > cursor.pk for entry in changed):
        return rebuild(session)
    # A writer may have appended after the session row was read: those entries wait for the next poll.
    changed = [entry for entry in changed if entry.seq <= session.history_count]
    shown = cards(session, changed)
    appended = [card for card in shown if card["seq"] > cursor.seq]
    replaced = [card for card in shown if card["seq"] <= cursor.seq]
    newest = max([cursor.pk] + [card["pk"] for card in appended])
    return Changes(Cursor(session.version, session.epoch, session.history_count, newest), appended, replaced)


def rebuild(session):
    chunk = read_chunk(session)
    return Changes(chunk.cursor, [], [], rebuilt=chunk)


# Cards -------------------------------------------------------------------------


def asks_a_person(entry_type, item):
    """Whether the entry shows a client action: its own card, or the card of the call it gates."""
    return entry_type == "client_action" or (entry_type == "action" and "approval" in item)


def cards(session, entries):
    """The cards of timeline entries, with the client action records their cards need, in one query."""
    now = timezone.now()
    items = [(entry, client_action_cards.as_shown(entry.type, entry.value, now)) for entry in entries]
    keys = [entry.key for entry, item in items if asks_a_person(entry.type, item)]
    actions = {}
    if keys:
        actions = {
            action.entry_key: action
            for action in ClientAction.objects.prefetch_related(votes.prefetched()).filter(
                session=session, entry_key__in=keys
            )
        }
        votes.judge(actions.values())
    return [card(entry, item, actions.get(entry.key), now) for entry, item in items]


def card(entry, item, action=None, now=None):
    """What a template needs to draw one timeline entry."""
    status = item.get("status") if isinstance(item.get("status"), str) else ""
    data = {
        "pk": entry.pk,
        "seq": entry.seq,
        "key": entry.key,
        "type": entry.type,
        # One template per history item type (docs/timeline.md).
        "template": f"dashboard/entries/{entry.type}.html",
        "created_at": entry.created_at,
        "item": item,
        "status": status,
        "status_class": status if status in KNOWN_STATUSES else "other",
    }
    if entry.type == "action" and "arguments" in item:
        data["arguments"] = json_preview.of_value(item["arguments"])
    elif entry.type == "client_action" and action is None:
        # An action the agent wrote down itself, with no record to decide: the item is all there is.
        data["arguments"] = json_preview.of_value(item)
    if action is not None or entry.type == "client_action":
        data.update(client_action_view(item, action, now or timezone.now()))
    if entry.type == "action":
        data.update(call_view(item, data))
    if entry.type in ("action", "client_action"):
        data["hidden_characters"] = (
            data.get("hidden_characters")
            or hidden_characters.contains(item.get("name"), item.get("callId"))
            or ("arguments" in data and data["arguments"].hidden_characters)
        )
    if entry.type == "message":
        data["role"] = item.get("role")
    elif entry.type == "subagent":
        data["child_url"] = session_url(session_keys.project_of(entry.session_id), item.get("childSessionId"))
    elif entry.type == "evaluation":
        data["metrics"] = metrics(item.get("metrics"))
        data["passed"] = sum(1 for metric in data["metrics"] if metric["passed"] is True)
    return data


def client_action_view(item, action, now):
    """What a card says about its client action: the record's state as it reads now (an expiry shows by itself)."""
    state = action.status_at(now) if action is not None else (item.get("status") or "")
    view = {
        "action": action,
        "state": state,
        "state_class": state if state in KNOWN_STATUSES else "other",
        "waiting": state == "waiting",
        "edited": False,
    }
    if action is not None:
        view.update(action_view(action))
        view.update(choices_view(action))
        if action.approved_arguments_json is not None:
            view["edited"] = action.arguments_json != action.approved_arguments_json and not jsonvalues.equal(
                action.arguments, action.approved_arguments
            )
        view["records"] = action_records.records(action, state, view["edited"])
    return view


def call_view(item, data):
    """A tool call's one badge and its durations. A call a person gates reads as its approval until approved
    (waiting for approval, rejected, expired…), then as the call itself; the agent's ``durationMs`` counts from
    the call's start, so the time the person took is taken out of it and shown on its own."""
    action = data.get("action")
    if action is not None and data["state"] != "approved":
        badge = ("waiting for approval" if data["waiting"] else data["state"], data["state_class"])
    else:
        badge = (data["status"] or "unknown", data["status_class"])
    view = {"badge": badge[0], "badge_class": badge[1], "duration_ms": item.get("durationMs"), "waited_ms": None}
    if action is not None and action.resolved_at is not None:
        waited = (action.resolved_at - action.created_at).total_seconds() * 1000
        view["waited_ms"] = max(waited, 0)
        if isinstance(view["duration_ms"], (int, float)) and not isinstance(view["duration_ms"], bool):
            view["duration_ms"] = max(view["duration_ms"] - view["waited_ms"], 0)
    return view


def choices_view(action):
    """The buttons an action allows, whether its arguments may be edited, and its answer form, if it may be
    answered (an unbound form: a refused answer shows the bound one instead, errors beside the fields)."""
    allowed = action.allowed
    return {
        "buttons": buttons_for(allowed),
        "may_edit": Decision.EDIT in allowed,
        "may_respond": Decision.RESPOND in allowed,
        "answer_form": DecisionForm(response_schema=action.response_schema) if Decision.RESPOND in allowed else None,
        "response": action.response,
        **votes_view(action),
    }


def votes_view(action):
    """What a card says of the votes so far ("1 of 2 approvals: ada, 14:02"), the votes that no longer count (struck
    through, with why), who may still decide, and, when nobody may any more, why."""
    policy = action.policy
    judged = votes.judged(action)
    approvals = [vote for vote in judged if vote.decision == Decision.APPROVE and vote.why is None]
    required = votes.required(action)
    groups = deciders.deciding_groups(action)
    listed = "; ".join(f"{vote.by}, {vote.at:%H:%M}" for vote in approvals)
    if required > 1:
        summary = f"{len(approvals)} of {required} approvals" + (f": {listed}" if approvals else "")
    else:
        # One approval decides, unless it was for edited arguments a stricter policy governs.
        summary = f"Approvals so far: {listed}" if approvals else ""
    return {
        "policy": policy,
        "approvals_summary": summary,
        "struck_votes": [
            {"by": vote.by, "at": f"{vote.at:%H:%M}", "why": vote.why} for vote in judged if vote.why is not None
        ],
        "may_still_decide": (
            f"Members of {', '.join(groups)} may decide" if groups else "Any approver of the project may decide"
        )
        + (" (people only, no API keys)." if policy and policy["peopleOnly"] else "."),
        "undecidable": eligibility.reason(action),
    }


def action_view(action):
    """What every page shows of a client action's own texts: its arguments and description as bounded previews, and
    whether any of its texts holds a character ``hidden_characters`` makes visible (the card warns)."""
    arguments = json_preview.of_stored(action.arguments_json)
    approved = None
    if action.approved_arguments_json is not None:
        approved = json_preview.of_stored(action.approved_arguments_json)
    hidden = (
        arguments.hidden_characters
        or (approved is not None and approved.hidden_characters)
        or hidden_characters.contains(action.name, action.call_id, action.description, action.comment)
    )
    description = json_preview.of_text(action.description, len(action.description.encode("utf-8", "surrogatepass")))
    return {
        "arguments": arguments,
        "approved_arguments": approved,
        "description": description,
        "hidden_characters": hidden,
    }


def session_url(project_id, session_id):
    """A link to a session of the project named by agent data, or None when the value cannot be a session id."""
    try:
        validation.session_id(session_id)
    except InvalidInput:
        return None
    return reverse("dashboard:session", args=[project_id, session_id])


def metrics(values):
    """Evaluation metrics with a pass/fail verdict: the metric's own when it has one, else score against threshold."""
    shown = []
    for metric in values if isinstance(values, list) else []:
        if not isinstance(metric, dict):
            continue
        score, threshold = metric.get("score"), metric.get("threshold")
        passed = metric.get("passed", metric.get("pass"))
        if not isinstance(passed, bool):
            passed = score >= threshold if is_number(score) and is_number(threshold) else None
        shown.append({"name": metric.get("name"), "score": score, "threshold": threshold, "passed": passed})
    return shown


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)

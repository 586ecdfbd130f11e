"""Sessions, their item log, the timeline projected from it, client actions
and recorded history operations.

JSON that agents send is kept as text (``historyhub.lib.jsonvalues``), not
in a JSON column: PostgreSQL's jsonb rejects ``\\u0000`` inside strings and
normalises numbers and key order, and the log must give back what was stored.
"""

from django.db import models
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.db.models.lookups import Contains, StartsWith
from django.utils import timezone

from historyhub.history import digests
from historyhub.lib import destructive, hidden_characters, jsonvalues, session_keys
from historyhub.lib.session_keys import DEFAULT_PROJECT


class SessionStatus(models.TextChoices):
    ACTIVE = "active"
    PAUSED = "paused"
    COMPLETED = "completed"


class RunStatus(models.TextChoices):
    RUNNING = "running"
    WAITING_FOR_SUBAGENT = "waiting_for_subagent"
    WAITING_FOR_CLIENT_ACTION = "waiting_for_client_action"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"


def has_expired(expires_at, now):
    """The rule of expiry: a client action expiring at ``expires_at`` (None: never) stops waiting at that moment,
    with nobody writing it (docs/architecture.md, "Time-driven state: expiry"). ``expired`` and ``unexpired`` are
    the rule as queries; everything that asks whether an action, a session or a card still waits asks these."""
    return expires_at is not None and expires_at <= now


def expired(field, now):
    """``has_expired`` as a query on a column of expiry times: rows whose ``field`` has come by ``now``."""
    return models.Q(**{f"{field}__lte": now})


def unexpired(field, now):
    """The rows ``expired`` leaves out: ``field`` is empty (never expires) or still to come at ``now``."""
    return models.Q(**{f"{field}__isnull": True}) | models.Q(**{f"{field}__gt": now})


def run_status_given(run_status, waits):
    """The one rule of waiting → running: a run waiting for a person runs again once no client action waits for
    one. Writes ask it when an action stops waiting (a decision, a result, the sweep, a pop), with the session's
    waiting count; reads ask it with the time (``Session.run_status_at``: an expiry nobody has written down yet);
    ``with_run_status`` is it as a query."""
    if run_status == RunStatus.WAITING_FOR_CLIENT_ACTION and not waits:
        return RunStatus.RUNNING
    return run_status


IN_DEFAULT_PROJECT = models.Q(project_id=DEFAULT_PROJECT)
PROJECT_PREFIX = Concat(F("project_id"), Value("/"))
# historyhub.lib.session_keys.session_key, as the database checks it.
KEY_IS_PROJECT_AND_ID = (IN_DEFAULT_PROJECT & models.Q(id=F("session_id"))) | (
    ~IN_DEFAULT_PROJECT & models.Q(id=Concat(PROJECT_PREFIX, F("session_id")))
)
# A child session's parent is in the child's project: no reference crosses the line.
PARENT_IN_PROJECT = (
    models.Q(parent__isnull=True)
    | (IN_DEFAULT_PROJECT & ~models.Q(Contains(F("parent_id"), Value("/"))))
    | (~IN_DEFAULT_PROJECT & models.Q(StartsWith(F("parent_id"), PROJECT_PREFIX)))
)


class Session(models.Model):
    # The session's key, <project>/<session id> (historyhub.lib.session_keys): what every table of the session
    # points at. The constraint below keeps it equal to the two columns it is made of.
    id = models.CharField(primary_key=True, max_length=401)
    # No index of its own: the unique constraint below starts with the project and serves it.
    project = models.ForeignKey("projects.Project", on_delete=models.PROTECT, related_name="sessions", db_index=False)
    session_id = models.CharField(max_length=200, help_text="The session's id in its project.")
    agent = models.CharField(max_length=200)
    name = models.CharField(max_length=500, blank=True, default="")
    status = models.CharField(max_length=16, choices=SessionStatus.choices, default=SessionStatus.ACTIVE)
    run_status = models.CharField(max_length=32, choices=RunStatus.choices, null=True, blank=True)
    metadata_json = models.TextField(default="{}")
    metadata_text = models.TextField(blank=True, default="", help_text="The metadata values, for search.")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")
    parent_call_id = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Allocation and projection state, changed only through writes.writing (the session's row lock).
    next_position = models.BigIntegerField(default=1)
    epoch = models.IntegerField(default=0, help_text="Raised by each compaction; older epochs are archived.")
    epoch_start = models.BigIntegerField(
        default=1, help_text="The first position of the current epoch: the logical history starts here."
    )
    item_count = models.IntegerField(default=0, help_text="Items in the logical history.")
    history_count = models.IntegerField(default=0, help_text="Timeline entries in the current epoch.")
    waiting_count = models.IntegerField(default=0, help_text="Client actions waiting for a decision.")
    waiting_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the last waiting client action expires; empty when one never does.",
    )
    usage_json = models.TextField(null=True, blank=True)
    last_message = models.CharField(max_length=300, blank=True, default="")
    version = models.BigIntegerField(default=0, help_text="Raised by every change; pollers compare it.")
    run_status_version = models.BigIntegerField(default=0, help_text="The version of the write that set run_status.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "session_id"], name="session_unique_id_in_project"),
            models.CheckConstraint(condition=KEY_IS_PROJECT_AND_ID, name="session_key_is_project_and_id"),
            models.CheckConstraint(condition=PARENT_IN_PROJECT, name="session_parent_in_project"),
        ]
        # Every list of sessions is one project's.
        indexes = [
            models.Index(fields=["project", "-updated_at"], name="session_updated"),
            models.Index(fields=["project", "agent", "-updated_at"], name="session_agent_updated"),
            models.Index(fields=["project", "run_status", "-updated_at"], name="session_run_status_updated"),
            # Insights' sessions per bucket (docs/insights.md, "Performance"), by agent without reading the rows.
            models.Index(fields=["project", "created_at"], name="session_created", include=["agent"]),
            # "Waiting on a person": a few sessions among many, newest first.
            models.Index(
                fields=["project", "-updated_at"],
                name="session_waiting_updated",
                condition=models.Q(waiting_count__gt=0),
            ),
        ]
        # The search indexes are each database's own kind, made in migration 0004 (docs/search.md).

    def __str__(self):
        return self.name or self.session_id

    @classmethod
    def new(cls, key, **fields):
        """An unsaved session with this key (historyhub.lib.session_keys), its project and id set from it."""
        project_id, session_id = session_keys.split(key)
        return cls(id=key, project_id=project_id, session_id=session_id, **fields)

    @property
    def metadata(self):
        return jsonvalues.loads(self.metadata_json)

    @metadata.setter
    def metadata(self, value):
        self.metadata_json = jsonvalues.dumps(value)
        # Values only: a search for a key or for JSON punctuation should not match.
        self.metadata_text = "\n".join(
            jsonvalues.column_text(entry if isinstance(entry, str) else jsonvalues.dumps(entry))
            for entry in value.values()
        )

    @property
    def usage(self):
        return jsonvalues.loads(self.usage_json) if self.usage_json else None

    def waits_at(self, now):
        """Whether a client action still waits for a decision at ``now`` (one past its expiresAt does not)."""
        return self.waiting_count > 0 and not has_expired(self.waiting_until, now)

    def run_status_at(self, now):
        """The runStatus a reader sees at ``now``: a wait whose client actions all expired is over."""
        return run_status_given(self.run_status, self.waits_at(now))

    @property
    def run_status_now(self):
        """The runStatus as a page shows it now."""
        return self.run_status_at(timezone.now())


def waiting_at(now):
    """Sessions with a client action that still waits at ``now``: ``Session.waits_at`` as a query."""
    return models.Q(waiting_count__gt=0) & unexpired("waiting_until", now)


def with_run_status(run_status, now):
    """Sessions whose runStatus reads ``run_status`` at ``now``: ``Session.run_status_at`` as a query."""
    waiting = RunStatus.WAITING_FOR_CLIENT_ACTION
    if run_status == waiting:
        return models.Q(run_status=waiting) & waiting_at(now)
    if run_status == RunStatus.RUNNING:
        return models.Q(run_status=RunStatus.RUNNING) | (models.Q(run_status=waiting) & ~waiting_at(now))
    return models.Q(run_status=run_status)


# An item that may report token usage: Orcha's usage is in its own column, the other formats' inside the item
# (insights.usage reads which). The condition of the index Insights reads them by.
CARRIES_USAGE = models.Q(usage_json__isnull=False) | models.Q(data__contains='"usage')


class Item(models.Model):
    """One entry of a session's item log, verbatim."""

    # No index of its own: the unique constraint below starts with the session and serves it (deletes too).
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="items", db_index=False)
    epoch = models.IntegerField()
    position = models.BigIntegerField()
    item_key = models.CharField(
        max_length=200, null=True, blank=True, help_text="The item's own id: for lookups, not an identity."
    )
    type = models.CharField(max_length=64, blank=True, default="")
    role = models.CharField(max_length=32, blank=True, default="")
    call_id = models.CharField(max_length=200, blank=True, default="")
    injected = models.BooleanField(default=False)
    received_at = models.DateTimeField()
    data = models.TextField()
    usage_json = models.TextField(null=True, blank=True)
    undo_json = models.TextField(null=True, blank=True, help_text="How to take back what projecting it changed.")

    class Meta:
        constraints = [
            # Also the index the log is read by: a session's positions from its epoch_start on.
            models.UniqueConstraint(fields=["session", "position"], name="item_unique_position"),
        ]
        indexes = [
            # Lookups by the item's own id (responses, skipExistingIds); most chat items have none.
            models.Index(
                fields=["session", "item_key", "position"],
                name="item_by_key",
                condition=models.Q(item_key__isnull=False),
            ),
            # Insights' ranges (docs/insights.md, "Performance"): items by when received, and those that report
            # token usage, each with its session, so that a project's range is read without its sessions.
            models.Index(fields=["received_at"], name="item_received", include=["session"]),
            models.Index(fields=["received_at"], name="item_usage", include=["session"], condition=CARRIES_USAGE),
        ]

    def __str__(self):
        return f"{self.session_id} #{self.position}"

    @property
    def value(self):
        return jsonvalues.loads(self.data)


class EntryStatus(models.TextChoices):
    """The status of a timeline entry (history item)."""

    RUNNING = "running"
    WAITING = "waiting"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"


class TimelineEntry(models.Model):
    """A history item projected from the log (or from a client action)."""

    # No index of its own: the unique constraint below starts with the session and serves it (deletes too).
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="timeline", db_index=False)
    epoch = models.IntegerField()
    seq = models.IntegerField(help_text="1-based rank within the epoch, dense, so pages need no OFFSET.")
    order = models.BigIntegerField(help_text="The position that placed it.")
    key = models.CharField(max_length=250)
    type = models.CharField(max_length=32)
    call_id = models.CharField(max_length=200, blank=True, default="", help_text="The call it shows, if any.")
    source_position = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField()
    data = models.TextField()
    text = models.TextField(blank=True, default="", help_text="Message text, for search.")
    changed_version = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            # Key first after the session: entries are looked up by key across epochs.
            models.UniqueConstraint(fields=["session", "key", "epoch"], name="timeline_unique_key"),
        ]
        indexes = [
            models.Index(fields=["session", "epoch", "seq"], name="timeline_page"),
            models.Index(fields=["session", "changed_version"], name="timeline_changes"),
            # An output finds the entry of its call; most entries are messages, which show none (the
            # queries repeat the condition, so SQLite's planner may use the index: timeline.TimelineWriter).
            models.Index(
                fields=["session", "call_id", "epoch"], name="timeline_by_call", condition=~models.Q(call_id="")
            ),
        ]
        verbose_name_plural = "timeline entries"

    def __str__(self):
        return self.key

    @property
    def value(self):
        return jsonvalues.loads(self.data)


class ClientActionStatus(models.TextChoices):
    WAITING = "waiting"
    APPROVED = "approved"
    REJECTED = "rejected"
    ANSWERED = "answered"
    DISMISSED = "dismissed"
    COMPLETED = "completed"
    FAILED = "failed"
    EXPIRED = "expired"


class Decision(models.TextChoices):
    """What a person (or a key) may answer a client action. Its rules (what each does, which an action allows) are
    ``approvals.decisions``; the words live here, beside the column that records them, below every app that uses
    them."""

    APPROVE = "approve", "Approve"
    # Approve with changed arguments: a kind an action may allow or not, sent as ``approve`` with ``arguments``.
    EDIT = "edit", "Edit"
    REJECT = "reject", "Reject"
    RESPOND = "respond", "Respond"
    DISMISS = "dismiss", "Dismiss"


# What an action allows when it names nothing (``ClientAction.allowed_responses``); a word of opening, so it lives
# beside the column, below approvals, which re-exports it with the rest of the vocabulary (``approvals.decisions``).
DEFAULT_ALLOWED = (Decision.APPROVE, Decision.EDIT, Decision.REJECT)

# An action a decision made final (expired and waiting ones have none): what Insights counts as decided, and the
# condition of the index it reads them by.
DECIDED = models.Q(decision__in=list(Decision.values))


class ClientActionQuerySet(models.QuerySet):
    """Client actions as they read at a moment: ``ClientAction.status_at`` as queries."""

    def overdue(self, now):
        """Waiting actions whose expiresAt has come: they read expired, and the sweep writes it down."""
        return self.filter(expired("expires_at", now), status=ClientActionStatus.WAITING)

    def showing(self, status, now):
        """The actions that read ``status`` at ``now``: a waiting one past its expiresAt reads expired."""
        if status == ClientActionStatus.WAITING:
            return self.filter(unexpired("expires_at", now), status=ClientActionStatus.WAITING)
        if status == ClientActionStatus.EXPIRED:
            return self.filter(
                models.Q(status=ClientActionStatus.EXPIRED)
                | (expired("expires_at", now) & models.Q(status=ClientActionStatus.WAITING))
            )
        return self.filter(status=status)

    def expiring_after(self, moment):
        """The actions that still wait at ``moment`` and will expire, the first to expire first (the unexpired ones
        with an expiresAt: a range of the expiry index)."""
        return self.filter(status=ClientActionStatus.WAITING, expires_at__gt=moment).order_by("expires_at")

    def expiring_between(self, after, until):
        """The actions that come to read expired in (after, until]: overdue at ``until`` and not yet at ``after``."""
        return self.overdue(until).filter(expires_at__gt=after)


class ClientAction(models.Model):
    # No index of its own: the unique constraint below starts with the session and serves it (deletes too).
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="client_actions", db_index=False)
    call_id = models.CharField(max_length=200)
    name = models.CharField(max_length=200)
    arguments_json = models.TextField(default="{}")
    description = models.TextField(blank=True, default="")
    status = models.CharField(max_length=16, choices=ClientActionStatus.choices, default=ClientActionStatus.WAITING)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=200, blank=True, default="")
    decision = models.CharField(max_length=16, choices=Decision.choices, blank=True, default="")
    comment = models.TextField(blank=True, default="")
    approved_arguments_json = models.TextField(null=True, blank=True)
    # Written with the arguments they digest (``digest_arguments``): docs/api.md, "Digests".
    arguments_digest = models.CharField(
        max_length=71, null=True, blank=True, help_text="sha256: of the arguments' RFC 8785 canonical JSON."
    )
    approved_arguments_digest = models.CharField(
        max_length=71, null=True, blank=True, help_text="The same of the approved arguments; empty until approved."
    )
    executed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the agent's side claimed its execution (once, docs/api.md)."
    )
    execution_refused_at = models.DateTimeField(
        null=True, blank=True, help_text="The last claim refused because its arguments were not the approved ones."
    )
    allowed_responses = models.CharField(
        max_length=100, default="approve,edit,reject", help_text="The decisions it allows, comma separated."
    )
    response_schema_json = models.TextField(null=True, blank=True, help_text="What a respond must carry, if set.")
    response_json = models.TextField(null=True, blank=True, help_text="The answer of a respond.")
    policy_json = models.TextField(
        null=True, blank=True, help_text="The approval policy that governs it, as it read when the action opened."
    )
    escalate_at = models.DateTimeField(
        null=True, blank=True, help_text="When the sweep escalates it, if it still waits (its policy says)."
    )
    escalated_at = models.DateTimeField(null=True, blank=True)
    undecidable_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Since when nobody may decide it any more under its policy (approvals.eligibility).",
    )
    output_json = models.TextField(null=True, blank=True)
    is_error = models.BooleanField(null=True, blank=True)
    agent_report = models.CharField(
        max_length=16,
        blank=True,
        default="",
        help_text="The outcome the agent's items reported while it waits for its deciders: shown, never a decision.",
    )
    reported = models.BooleanField(
        default=False, help_text="Settled as the agent's items reported it, not decided here (no decider, no vote)."
    )
    imported = models.BooleanField(
        default=False, help_text="Imported already resolved: its record is the export's, and it is never decided here."
    )
    epoch = models.IntegerField(default=0)
    source_position = models.BigIntegerField(
        null=True, blank=True, help_text="The log item that opened it; empty when opened through the API."
    )
    entry_key = models.CharField(max_length=250, blank=True, default="", help_text="The timeline entry that shows it.")
    order = models.BigIntegerField(
        null=True, blank=True, help_text="The position its card took on the timeline, where it shows again."
    )
    opened_by_key = models.ForeignKey(
        "apikeys.ApiKey",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The API key whose request opened it: it may never decide it.",
    )
    # What its texts hold, noted as they are written (``measure_texts``), so that a page of fifty cards tells it
    # without reading a megabyte of each (docs/dashboard.md, "Large arguments and descriptions").
    arguments_bytes = models.PositiveIntegerField(default=0, help_text="The arguments' size as UTF-8 JSON.")
    description_bytes = models.PositiveIntegerField(default=0, help_text="The description's size as UTF-8.")
    hides_characters = models.BooleanField(
        default=False, help_text="Its name, call id, description or arguments hold an invisible character."
    )
    destructive_json = models.TextField(default="[]", help_text="Why it looks destructive (none: it does not).")

    objects = ClientActionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "call_id"], name="client_action_unique_call"),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"], name="client_action_inbox"),
            models.Index(fields=["status", "expires_at"], name="client_action_expiry"),
            models.Index(fields=["session", "status"], name="client_action_session_status"),
            models.Index(
                fields=["escalate_at"],
                name="client_action_escalation",
                condition=models.Q(escalate_at__isnull=False, escalated_at__isnull=True),
            ),
            # Insights' ranges (docs/insights.md, "Performance"): decided ones by when decided, expired ones by when
            # they expired, all by when opened, each carrying what the numbers group by, so that a range is read from
            # the index alone (PostgreSQL; elsewhere the columns after the first are not kept in it).
            models.Index(
                fields=["resolved_at"],
                name="client_action_decided",
                include=[
                    "session",
                    "created_at",
                    "name",
                    "decision",
                    "resolved_by",
                    "arguments_digest",
                    "approved_arguments_digest",
                ],
                condition=DECIDED,
            ),
            models.Index(
                fields=["resolved_at"],
                name="client_action_expired",
                include=["session", "name"],
                condition=models.Q(status=ClientActionStatus.EXPIRED),
            ),
            models.Index(fields=["created_at"], name="client_action_opened", include=["session"]),
        ]

    def __str__(self):
        return f"{self.name} ({self.call_id})"

    # The fields ``measure_texts`` sets.
    TEXT_MEASURES = ("arguments_bytes", "description_bytes", "hides_characters", "destructive_json")

    def measure_texts(self):
        """Note what its name, call id, arguments and description hold; every write of them calls it."""
        self.arguments_bytes = len(self.arguments_json.encode("utf-8", "surrogatepass"))
        self.description_bytes = len(self.description.encode("utf-8", "surrogatepass"))
        self.hides_characters = hidden_characters.contains(
            self.name, self.call_id, self.description, self.arguments_json
        )
        self.destructive_json = jsonvalues.dumps(destructive.reasons(self.name, self.arguments_json))

    # The fields ``digest_arguments`` sets.
    DIGESTS = ("arguments_digest", "approved_arguments_digest")

    def digest_arguments(self):
        """The digests of its arguments and approved arguments; every write of either calls it."""
        self.arguments_digest = digests.of(self.arguments)
        approved = self.approved_arguments_json
        self.approved_arguments_digest = digests.of(jsonvalues.loads(approved)) if approved is not None else None

    @property
    def destructive_reasons(self):
        return jsonvalues.loads(self.destructive_json)

    @property
    def arguments(self):
        return jsonvalues.loads(self.arguments_json)

    @property
    def approved_arguments(self):
        return jsonvalues.loads(self.approved_arguments_json) if self.approved_arguments_json else None

    @property
    def allowed(self):
        return tuple(self.allowed_responses.split(","))

    @property
    def response_schema(self):
        return jsonvalues.loads(self.response_schema_json) if self.response_schema_json else None

    @property
    def response(self):
        return jsonvalues.loads(self.response_json) if self.response_json is not None else None

    @property
    def policy(self):
        return jsonvalues.loads(self.policy_json) if self.policy_json else None

    @property
    def output(self):
        return jsonvalues.loads(self.output_json) if self.output_json else None

    @property
    def is_waiting(self):
        return self.status == ClientActionStatus.WAITING

    def status_at(self, now):
        """The status a reader sees at ``now``: a waiting action past its expiresAt is expired."""
        if self.is_waiting and has_expired(self.expires_at, now):
            return ClientActionStatus.EXPIRED
        return ClientActionStatus(self.status)


class Operation(models.Model):
    """An applied history transaction, so a retry is recognised."""

    # No index of its own: the unique constraint below starts with the session and serves it (deletes too).
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="operations", db_index=False)
    operation_id = models.CharField(max_length=200)
    transaction_json = models.TextField()
    applied_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "operation_id"], name="operation_unique_id"),
        ]

    def __str__(self):
        return self.operation_id

    @property
    def transaction(self):
        return jsonvalues.loads(self.transaction_json)


class UsageHour(models.Model):
    """Sessions created, items received, client actions opened and tokens of one project's UTC hour, per agent and
    model, kept by the writes that change them (``history.usage_hours``): what Insights reads a range's whole hours
    from (docs/insights.md, "Performance")."""

    # No index of its own: the unique constraint below starts with the project and serves it.
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+", db_index=False)
    hour = models.DateTimeField()
    agent = models.CharField(max_length=200)
    model = models.CharField(max_length=200, blank=True, default="", help_text="Items are counted under none.")
    items = models.BigIntegerField(default=0)
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)
    sessions = models.BigIntegerField(default=0, help_text="Sessions created in the hour (under no model).")
    client_actions = models.BigIntegerField(default=0, help_text="Client actions opened in the hour (under no model).")

    class Meta:
        constraints = [
            # The upsert's conflict target, and the index a range of hours is read by.
            models.UniqueConstraint(fields=["project", "hour", "agent", "model"], name="usage_hour_unique"),
        ]

    def __str__(self):
        return f"{self.project_id} {self.hour:%Y-%m-%d %H}:00 {self.agent} {self.model}"

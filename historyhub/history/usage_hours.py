"""Sessions created, items received, client actions opened and tokens per project, UTC hour, agent and model
(``UsageHour``), kept by the writes that change them, so that Insights reads a range's whole hours from a few hundred
rows instead of every item (docs/insights.md, "Performance").

The tallies are one upsert per write (``INSERT … ON CONFLICT DO UPDATE SET n = n + excluded.n``, on PostgreSQL
and on SQLite alike), so two writers adding to the same hour both count, whatever the order. A ``Write`` collects
what it changes (``Write.usage``) and upserts it as it finishes, after every session lock its transaction takes,
so the hour's row is locked only until the commit and never before a session's lock (an import, many writes in
one transaction, upserts once at its end: ``deferred``). What adds and what takes away, each in the transaction of
its change:

- a session created by a write (``Write.__init__``), moved to the hour an import says it was created
  (``data.importing``);
- items stored (``item_log.store``: appends, replaces, compactions, transactions, imports with their own times);
- client actions opened (``client_actions.open_in``, imported ones at their own times);
- taken away before they are deleted: a pop or a replaced suffix (``item_log.take_back``, with the actions its
  item opened), a replace (``item_log._truncate``), a clear, and ``ownership.delete_sessions`` (a session's
  delete, retention, erasure), which takes away the sessions, their items and actions;
- a change of a session's metadata ``model`` moves the tokens of its items that name no model of their own
  (``sessions.update``);
- a project's rows go with the project (a foreign key that cascades).

Compaction archives items without deleting them, so they still count, as Insights counted them before.

Sessions, items and client actions are counted in the row of model ``""`` (they are of an agent, not of a model);
tokens in the row of the model the item names, else the session's metadata ``model``, else ``""``. Rows whose
counts fell to zero stay: there is at most one per project, hour, agent and model.
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connection, models
from django.db.models import Count, QuerySet
from django.db.models.functions import Trunc

from historyhub.history.models import CARRIES_USAGE, ClientAction, Item, Session, UsageHour
from historyhub.lib import bulk, jsonvalues

# The token counts each format's usage object names: Orcha ``usage`` (camelCase), Responses ``usage``,
# chat-completions ``usage`` and LangChain's ``usage_metadata``.
INPUT_FIELDS = ("inputTokens", "input_tokens", "prompt_tokens")
OUTPUT_FIELDS = ("outputTokens", "output_tokens", "completion_tokens")
UNKNOWN_MODEL = ""
COUNTS = ("items", "input_tokens", "output_tokens", "sessions", "client_actions")
ITEMS, INPUT, OUTPUT, SESSIONS, CLIENT_ACTIONS = range(len(COUNTS))
# Rows per upsert statement: a whole history recounted at once (the migration) stays under the databases' limits on
# parameters.
UPSERT_ROWS = 1000


@dataclass(frozen=True)
class Counted:
    input: int
    output: int
    model: str


def _count(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else 0


def tokens_of(item: object, session_model: str) -> Counted | None:
    """The tokens an item reports, and the model it names (else the session's), or None when it reports none."""
    if not isinstance(item, dict):
        return None
    usage = item.get("usage") if isinstance(item.get("usage"), dict) else item.get("usage_metadata")
    if not isinstance(usage, dict):
        return None
    counted_in = next((_count(usage[name]) for name in INPUT_FIELDS if name in usage), 0)
    counted_out = next((_count(usage[name]) for name in OUTPUT_FIELDS if name in usage), 0)
    if not counted_in and not counted_out:
        return None
    metadata = item.get("response_metadata")
    named = item.get("model") or (metadata.get("model_name") if isinstance(metadata, dict) else None)
    model = named if isinstance(named, str) and named else session_model
    return Counted(counted_in, counted_out, model[:200])


def session_model(metadata_json: str) -> str:
    """The model a session's metadata names, for its items that name none."""
    model = jsonvalues.loads(metadata_json).get("model") if metadata_json else None
    return model if isinstance(model, str) else UNKNOWN_MODEL


def hour_of(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


# (project, hour, agent, model) -> [items, input tokens, output tokens, sessions, client actions] (``COUNTS``)
Key = tuple[str, datetime, str, str]
Tallies = dict[Key, list[int]]


def tallies() -> Tallies:
    return defaultdict(lambda: [0] * len(COUNTS))


def count_items(found: Tallies, project_id: str, agent: str, model_of_session: str, items: Iterable, sign: int = 1):
    """Add (``sign`` 1) or take away (-1) ``items``, pairs of (received at, the item's value), of one session."""
    for received_at, value in items:
        hour = hour_of(received_at)
        found[(project_id, hour, agent, UNKNOWN_MODEL)][ITEMS] += sign
        counted = tokens_of(value, model_of_session)
        if counted is not None:
            row = found[(project_id, hour, agent, counted.model)]
            row[INPUT] += sign * counted.input
            row[OUTPUT] += sign * counted.output


def count_opened(found: Tallies, session: Any, moments: Iterable[datetime], sign: int = 1, index: int = CLIENT_ACTIONS):
    """Add or take away client actions of ``session`` opened at ``moments`` (or, with ``index=SESSIONS``,
    sessions created then)."""
    for moment in moments:
        found[(session.project_id, hour_of(moment), session.agent, UNKNOWN_MODEL)][index] += sign


def recounted(
    items: QuerySet | None = None,
    sessions: QuerySet | None = None,
    actions: QuerySet | None = None,
    sign: int = 1,
    model_of: dict[str, str] | None = None,
) -> Tallies:
    """What the rows add up to (times ``sign``): the item rows ``items`` counted per hour by the database, and the
    tokens of those that may report usage, read and parsed; the sessions ``sessions`` by when created, the client
    actions ``actions`` by when opened. ``model_of`` names the model of a session's items that name none, by
    session key, instead of the session's metadata (a metadata change takes away what the old model counted)."""
    found = tallies()
    for rows, moment, session, index in (
        (items, "received_at", "session__", ITEMS),
        (sessions, "created_at", "", SESSIONS),
        (actions, "created_at", "session__", CLIENT_ACTIONS),
    ):
        if rows is None:
            continue
        counted = (
            rows.annotate(hour=Trunc(moment, "hour", tzinfo=UTC))
            .values_list(f"{session}project_id", "hour", f"{session}agent")
            .annotate(n=Count("*"))
            .order_by()
        )
        for project_id, hour, agent, count in counted:
            found[(project_id, hour.astimezone(UTC), agent, UNKNOWN_MODEL)][index] += sign * count
    if items is None:
        return found
    reporting = items.filter(CARRIES_USAGE).values_list(
        "session_id", "session__project_id", "session__agent", "session__metadata_json", "received_at", "data"
    )
    for key, project_id, agent, metadata, received_at, data in reporting.order_by().iterator(chunk_size=2000):
        model = model_of[key] if model_of is not None and key in model_of else session_model(metadata)
        counted_tokens = tokens_of(jsonvalues.loads(data), model)
        if counted_tokens is not None:
            row = found[(project_id, hour_of(received_at), agent, counted_tokens.model)]
            row[INPUT] += sign * counted_tokens.input
            row[OUTPUT] += sign * counted_tokens.output
    return found


def merge(found: Tallies, more: Tallies) -> Tallies:
    for key, counts in more.items():
        row = found[key]
        for index, count in enumerate(counts):
            row[index] += count
    return found


# Where ``deferred`` collects: an attribute of the database connection, whose transaction it is about (a
# context variable would not follow a generator that a streamed answer resumes in copies of its context).
DEFERRED = "_usage_hours_deferred"


@contextmanager
def deferred() -> Iterator[None]:
    """Inside, ``add`` collects the tallies instead of upserting them; they are upserted once when the block ends
    without an error. A transaction of many writes (an import) runs inside it, so the hours' rows, which other
    sessions' writes share, are locked only at its end, after every session's lock it takes."""
    outer = getattr(connection, DEFERRED, None)
    found = tallies()
    setattr(connection, DEFERRED, found)
    try:
        yield
    finally:
        setattr(connection, DEFERRED, outer)
    add(found)


def add(found: Tallies, table: type[models.Model] = UsageHour) -> None:
    """Upsert the tallies in one statement: each count is added to what its row holds, so concurrent writers to
    one hour both count (the row's lock orders them). Keys in a fixed order, so two writers lock rows in the
    same order and never deadlock."""
    collecting = getattr(connection, DEFERRED, None)
    if collecting is not None and table is UsageHour:
        merge(collecting, found)
        return
    rows = [(*key, *counts) for key, counts in sorted(found.items()) if any(counts)]
    for first in range(0, len(rows), UPSERT_ROWS):
        _upsert(table, rows[first : first + UPSERT_ROWS])


def _upsert(table: type[models.Model], rows: list) -> None:
    if not rows:
        return
    quote = connection.ops.quote_name
    name = quote(table._meta.db_table)
    columns = ["project_id", "hour", "agent", "model", *COUNTS]
    placeholders = "(" + ", ".join(["%s"] * len(columns)) + ")"
    added = ", ".join(f"{quote(count)} = {name}.{quote(count)} + excluded.{quote(count)}" for count in COUNTS)
    sql = (
        f"INSERT INTO {name} ({', '.join(quote(column) for column in columns)}) "  # noqa: S608 (names are ours)
        f"VALUES {', '.join([placeholders] * len(rows))} "
        f"ON CONFLICT ({', '.join(quote(column) for column in columns[:4])}) DO UPDATE SET {added}"
    )
    parameters: list[Any] = []
    for project_id, hour, agent, model, *counts in rows:
        parameters.extend((project_id, bulk.datetime_value(hour), agent, model, *counts))
    with connection.cursor() as cursor:
        cursor.execute(sql, parameters)


def remove_sessions(keys: list[str]) -> None:
    """Take the sessions, their items and their client actions away from the tallies: call it in the transaction
    that deletes them, before."""
    add(
        recounted(
            Item.objects.filter(session_id__in=keys),
            Session.objects.filter(pk__in=keys),
            ClientAction.objects.filter(session_id__in=keys),
            sign=-1,
        )
    )


def model_changed(session: Any, old_metadata_json: str) -> Tallies:
    """What moves when the session's metadata ``model`` changes: the tokens of its items that name no model of their
    own, from the old model to the new (none when it stayed)."""
    moved = tallies()
    old, new = session_model(old_metadata_json), session_model(session.metadata_json)
    if old == new:
        return moved
    items = Item.objects.filter(session_id=session.pk)
    for sign, model in ((-1, old), (1, new)):
        merge(moved, recounted(items, sign=sign, model_of={session.pk: model}))
    return moved


def everything() -> Tallies:
    """What every row adds up to: what the tallies hold when nothing was missed (the migration fills them so)."""
    return recounted(Item.objects.all(), Session.objects.all(), ClientAction.objects.all())


def held(project_id: str | None = None) -> Tallies:
    """What the tallies table holds (its non-zero rows), of one project or all: to compare with ``recounted``."""
    rows = UsageHour.objects.all() if project_id is None else UsageHour.objects.filter(project_id=project_id)
    found = tallies()
    for project, hour, agent, model, *counts in rows.values_list("project_id", "hour", "agent", "model", *COUNTS):
        if any(counts):
            found[(project, hour.astimezone(UTC), agent, model)] = list(counts)
    return found

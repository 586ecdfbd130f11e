"""The item log: append, read, pop, clear, replace and compact (docs/api.md, "The agent SDK session protocol").

Every item an agent sends is kept, in order, each at a position that only
grows; an item's own id is recorded for lookups but is no identity, unless the
caller asks for ``skip_existing_ids`` (docs/api.md, "Items, the log and its
projections"). All changes go through ``writes.writing``, so positions are
allocated and projections updated by one writer at a time per session.
"""

import functools
from typing import NamedTuple

from django.db import connection
from django.db.models import Max, Subquery

from historyhub.history import client_actions, usage_hours
from historyhub.history.dialects import base
from historyhub.history.models import ClientAction, ClientActionStatus, Item, Operation, Session, TimelineEntry
from historyhub.history.projection import Projection
from historyhub.history.undo import Undo, usage_json
from historyhub.history.writes import writing
from historyhub.lib import bulk, jsonvalues, previews, validation
from historyhub.lib.errors import InvalidInput

STREAM_CHUNK = 1000
# How many of the newest messages a preview looks through for one with text, before it gives up.
LAST_MESSAGE_LOOKS = 50
_COLUMNS = (
    "session_id",
    "epoch",
    "position",
    "item_key",
    "type",
    "role",
    "call_id",
    "injected",
    "received_at",
    "data",
    "usage_json",
    "undo_json",
)


class Appended(NamedTuple):
    inserted: list
    item_count: int


class Compacted(NamedTuple):
    changed: bool
    item_count: int


def _checked_agent(agent):
    if agent:
        validation.identifier(agent, "agent")
    return agent or "default"


# Writing -------------------------------------------------------------------------------


def append(key, items, agent=None, injected=False, skip_existing_ids=False, by_key=None):
    """Append every item (or, with ``skip_existing_ids``, those whose id the history does not hold yet)."""
    validation.session_key(key)
    agent = _checked_agent(agent)
    checked = validation.items(items)
    with writing(key, create_as=agent, by_key=by_key) as write:
        inserted = store(write, checked, injected=injected, skip_existing_ids=skip_existing_ids)
    return Appended(inserted, write.session.item_count)


def store(write, checked_items, injected=False, skip_existing_ids=False, received_at=None):
    """Store checked items at the end of a locked session's log and project them; returns [inserted, …].

    ``received_at`` is when they arrived: now, unless an import recreates items that arrived before.
    """
    session = write.session
    received_at = received_at or write.now
    held = _held_ids(session, checked_items) if skip_existing_ids else None
    batch, texts, inserted = [], [], []
    for item, text in checked_items:
        if held is not None:
            key = base.item_id(item)
            if key is not None:
                # The first of a batch wins; the session lock makes this the one winner across processes.
                if key in held:
                    inserted.append(False)
                    continue
                held.add(key)
        batch.append(
            base.Logged(
                item=item,
                type=base.item_type(item),
                role=base.role(item),
                call_id=base.call_id(item),
                position=session.next_position,
                received_at=received_at,
                injected=injected,
                usage=base.item_usage(item),
            )
        )
        texts.append(text)
        session.next_position += 1
        inserted.append(True)
    undos = Projection(write).apply(batch)
    usage_hours.count_items(
        write.usage,
        session.project_id,
        session.agent,
        usage_hours.session_model(session.metadata_json),
        ((logged.received_at, logged.item) for logged in batch),
    )
    received_value = bulk.datetime_value(received_at)
    bulk.insert(
        Item,
        _COLUMNS,
        [
            (
                session.pk,
                session.epoch,
                logged.position,
                base.item_id(logged.item),
                jsonvalues.column_text(logged.type)[:64],
                jsonvalues.column_text(logged.role)[:32],
                logged.call_id,
                injected,
                received_value,
                text,
                jsonvalues.dumps(logged.usage) if logged.usage else None,
                undo,
            )
            for logged, text, undo in zip(batch, texts, undos, strict=True)
        ],
    )
    session.item_count += len(batch)
    return inserted


def _held_ids(session, checked_items):
    ids = {key for item, _ in checked_items if (key := base.item_id(item)) is not None}
    if not ids:
        return set()
    return set(logical_rows(session).filter(item_key__in=ids).values_list("item_key", flat=True))


def pop(key):
    """Remove and return the newest item of the logical history, or None."""
    validation.session_key(key)
    with writing(key, missing_ok=True) as write:
        if write is None:
            return None
        row = logical_rows(write.session).order_by("-position").first()
        if row is None:
            write.discard()
            return None
        take_back(write, row)
    return row.value


def clear(key):
    """Remove every item, timeline entry, client action and operation; the session stays."""
    validation.session_key(key)
    with writing(key, missing_ok=True) as write:
        if write is None:
            return
        session = write.session
        write.timeline.clear()
        every = usage_hours.recounted(
            Item.objects.filter(session=session), actions=ClientAction.objects.filter(session=session), sign=-1
        )
        write.count_usage(every)
        for model in (Item, ClientAction, Operation):
            model.objects.filter(session=session).delete()
        # The waiting count is counted again when the write finishes: every action changed.
        write.every_action_changed()
        session.item_count = 0
        session.usage_json = None
        session.last_message = ""
        write.set_run_status(None)


def replace(key, items, agent=None, by_key=None):
    """The logical history becomes exactly these items (truncation); returns itemCount."""
    validation.session_key(key)
    agent = _checked_agent(agent)
    checked = validation.items(items)
    with writing(key, create_as=agent, by_key=by_key) as write:
        _truncate(write)
        store(write, checked)
    return write.session.item_count


def _truncate(write):
    """Drop the logical history and what it projected; client actions opened through the API stay."""
    session = write.session
    write.count_usage(usage_hours.recounted(logical_rows(session), sign=-1))
    logical_rows(session).delete()
    write.timeline.remove_logged()
    logged_actions = ClientAction.objects.filter(session=session, epoch=session.epoch, source_position__isnull=False)
    for call_id, opened_at in logged_actions.values_list("call_id", "created_at"):
        write.action_changed(call_id)
        usage_hours.count_opened(write.usage, session, [opened_at], sign=-1)
    logged_actions.delete()
    session.item_count = 0
    session.usage_json = None
    client_actions.show_again(write, ClientAction.objects.filter(session=session, status=ClientActionStatus.WAITING))
    client_actions.align_run_status(write)
    refresh_last_message(session)


def take_back(write, row):
    """Undo everything the log item ``row`` (the newest of the logical history) did, then delete it."""
    session = write.session
    removed_keys = write.timeline.remove_placed_by(row.position)
    opened = ClientAction.objects.filter(session=session, epoch=session.epoch, source_position=row.position)
    for call_id, opened_at in opened.values_list("call_id", "created_at"):
        write.action_changed(call_id)
        usage_hours.count_opened(write.usage, session, [opened_at], sign=-1)
    opened.delete()
    Undo.loads(row.undo_json).revert(write)
    # An action asked about this item's call (opened through the API) stays, and shows on a card of its own.
    client_actions.show_again(write, ClientAction.objects.filter(session=session, entry_key__in=removed_keys))
    client_actions.gate_again(write)
    client_actions.align_run_status(write)
    if row.usage_json:
        session.usage_json = usage_json(base.add_usage(session.usage, jsonvalues.loads(row.usage_json), -1))
    session.item_count -= 1
    usage_hours.count_items(
        write.usage,
        session.project_id,
        session.agent,
        usage_hours.session_model(session.metadata_json),
        [(row.received_at, row.value)],
        sign=-1,
    )
    row.delete()


def compact(key, items, by_key=None):
    """Archive the logical history and continue from these items, which hold a compaction item first or last."""
    validation.session_key(key)
    checked = validation.items(items)
    if not checked or "compaction" not in (base.item_type(checked[0][0]), base.item_type(checked[-1][0])):
        raise InvalidInput('items must hold an item of type "compaction", first or last.')
    with writing(key, create_as="default", by_key=by_key) as write:
        session = write.session
        if session.item_count == len(checked) and jsonvalues.equal(
            [row.value for row in logical_rows(session).order_by("position")], [item for item, _ in checked]
        ):
            write.discard()
            return Compacted(False, session.item_count)
        start_epoch(write)
        store(write, checked)
        if not session.last_message:
            # Nothing kept says anything: the list shows the last thing said, from the archive.
            refresh_last_message(session)
    return Compacted(True, session.item_count)


def start_epoch(write):
    """Archive the logical history: the log goes on in a new epoch, empty until items are stored in it."""
    session = write.session
    archived = session.epoch
    session.epoch += 1
    session.epoch_start = session.next_position
    session.item_count = 0
    # Usage and the preview are of the logical history, which starts again here.
    session.usage_json = None
    session.last_message = ""
    # What waits for a decision stays in view: its card moves into the new epoch.
    waiting_cards = ClientAction.objects.filter(session=session, status=ClientActionStatus.WAITING).values("entry_key")
    session.history_count = 0
    write.timeline.carry_into_current_epoch(waiting_cards, archived)


def refresh_last_message(session):
    """The sessions list's preview after the timeline changed under it: the newest message that says something,
    in an archived epoch if the current one has none (a compaction that kept no message)."""
    messages = TimelineEntry.objects.filter(session=session, epoch__lte=session.epoch, type="message")
    for entry in messages.order_by("-epoch", "-seq").only("text", "data")[:LAST_MESSAGE_LOOKS]:
        shown = previews.message(entry.text, entry.value["content"][0]["type"])
        if shown.strip():
            session.last_message = shown
            return
    session.last_message = ""


# Reading -------------------------------------------------------------------------------


def logical_rows(session):
    """The items of the logical history: the current epoch's."""
    return Item.objects.filter(session=session, position__gte=session.epoch_start)


def compaction_item(session, epoch):
    """The compaction item that began ``epoch`` (1 or more: each compaction makes one), or None.

    It is one of the first items the compaction stored, so the look starts where the epoch does: for the
    current one, at ``epoch_start``; for an archived one, after the newest entry of the epoch before it.
    """
    if epoch == 0:
        return None
    if epoch == session.epoch:
        after = session.epoch_start - 1
    else:
        before = TimelineEntry.objects.filter(session=session, epoch=epoch - 1).order_by("-seq")
        after = before.values_list("order", flat=True).first() or 0
    row = (
        Item.objects.filter(session=session, position__gt=after, epoch=epoch, type="compaction")
        .order_by("position")
        .only("data")
        .first()
    )
    return row.value if row is not None else None


def newest(session, count):
    """The newest ``count`` items of the logical history, chronological."""
    if count <= 0:
        return []
    rows = list(logical_rows(session).order_by("-position").values_list("data", flat=True)[:count])
    return [jsonvalues.loads(data) for data in reversed(rows)]


def iter_item_texts(key, limit=None):
    """The logical history as stored JSON texts, chronological, read in bounded chunks.

    The first reads happen before this returns: a database that cannot be
    reached fails the request (503) before an answer starts, which could no
    longer change its status. The upper bound is fixed then too, so a writer
    appending while the answer streams does not make it longer than the
    history was. An unknown session has no items.
    """
    if limit == 0:
        return iter(())
    if limit is not None and limit <= STREAM_CHUNK:
        # get_items(limit), the read every turn of an agent makes: a statement prepared once, since compiling
        # the ORM's query cost more than running it.
        with connection.cursor() as cursor:
            cursor.execute(_newest_texts_sql(connection.vendor), [key, key, limit])
            return reversed([data for (data,) in cursor.fetchall()])
    epoch_start = Session.objects.filter(pk=key).values("epoch_start")[:1]
    rows = Item.objects.filter(session_id=key, position__gte=Subquery(epoch_start))
    last = rows.aggregate(last=Max("position"))["last"]
    if last is None:
        return iter(())
    after = 0
    # A limit of at least the item count means every item; the database is not asked for an offset
    # that may not fit its integers.
    item_count = Session.objects.filter(pk=key).values_list("item_count", flat=True).first() or 0
    if limit is not None and limit < item_count:
        start = rows.order_by("-position").values_list("position", flat=True)[limit - 1 : limit]
        after = start[0] - 1 if start else 0
    return _texts_from(rows, _chunk(rows, after, last), last)


@functools.cache
def _newest_texts_sql(vendor):
    """The ``%s`` newest items of session ``%s`` (given twice), newest first: the current epoch's start is read
    in the same statement."""
    quote = connection.ops.quote_name
    items, sessions = quote(Item._meta.db_table), quote(Session._meta.db_table)
    session, position, data = (quote(Item._meta.get_field(name).column) for name in ("session", "position", "data"))
    epoch_start, pk = quote(Session._meta.get_field("epoch_start").column), quote(Session._meta.pk.column)
    return (
        f"SELECT {data} FROM {items} WHERE {session} = %s"
        f" AND {position} >= (SELECT {epoch_start} FROM {sessions} WHERE {pk} = %s)"
        f" ORDER BY {position} DESC LIMIT %s"
    )


def _chunk(rows, after, last):
    return list(
        rows.filter(position__gt=after, position__lte=last)
        .order_by("position")
        .values_list("position", "data")[:STREAM_CHUNK]
    )


def _texts_from(rows, chunk, last):
    while True:
        for _position, data in chunk:
            yield data
        if len(chunk) < STREAM_CHUNK:
            return
        chunk = _chunk(rows, chunk[-1][0], last)

"""The item log: append, read, pop, clear, replace and compact (API.md "The
agent SDK session protocol").

Writers lock the session row first (``SELECT … FOR UPDATE`` on PostgreSQL; on
SQLite the IMMEDIATE transaction already holds the write lock), so positions
are allocated and projections updated one writer at a time. Which of several
writers of one item id wins is still settled by the unique constraint, through
``INSERT … ON CONFLICT DO NOTHING``.
"""

from django.db import connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from historyhub.history import dialects, jsonvalues, sessions, validation
from historyhub.history.errors import InvalidInput
from historyhub.history.models import ClientAction, ClientActionStatus, Item, RunStatus, Session, TimelineEntry
from historyhub.history.projection import Projection, update_parent_of

STREAM_CHUNK = 1000
INSERT_BATCH = 500
_INSERT_COLUMNS = (
    "session_id",
    "epoch",
    "position",
    "item_key",
    "kind",
    "role",
    "call_id",
    "injected",
    "received_at",
    "data",
    "usage_json",
    "undo_json",
)


# Writing ---------------------------------------------------------------------


def append(session_id, items, agent=None, injected=False):
    """Append items idempotently; returns ([inserted, …], itemCount)."""
    validation.session_id(session_id)
    if agent:
        validation.identifier(agent, "agent")
    checked = validation.items(items)
    with transaction.atomic():
        session = sessions.lock_or_create(session_id, agent or "default")
        inserted = store(session, checked, injected=injected)
        sessions.save_state(session)
    return inserted, session.item_count


def store(session, checked_items, injected=False):
    """Insert into a locked session's current epoch and project what was inserted."""
    now = timezone.now()
    session.version += 1
    seen, pending, inserted = set(), [], []
    for item, text in checked_items:
        key = dialects.item_key(item)
        if key is not None and key in seen:
            inserted.append(None)
            continue
        seen.add(key)
        usage = dialects.item_usage(item)
        pending.append(
            (
                item,
                Item(
                    session=session,
                    epoch=session.epoch,
                    position=session.next_position + len(pending),
                    item_key=key,
                    kind=jsonvalues.column_text(dialects.item_type(item))[:64],
                    role=jsonvalues.column_text(dialects.role(item))[:32],
                    call_id=dialects.call_id(item),
                    injected=injected,
                    received_at=now,
                    data=text,
                    usage_json=jsonvalues.dumps(usage) if usage else None,
                ),
            )
        )
        inserted.append(len(pending) - 1)
    session.next_position += len(pending)
    stored = _insert_ignoring_duplicates([row for _, row in pending])

    projection = Projection(session, now)
    undo_rows = []
    for item, row in pending:
        if row.position in stored:
            undo = projection.apply(row, item)
            if undo:
                row.undo_json = jsonvalues.dumps(undo)
                undo_rows.append(row)
    projection.flush()
    for row in undo_rows:
        Item.objects.filter(session=session, position=row.position).update(undo_json=row.undo_json)
    session.item_count += len(stored)
    return [index is not None and pending[index][1].position in stored for index in inserted]


def _insert_ignoring_duplicates(rows):
    """Insert rows, skipping those whose id the epoch already holds; returns the stored positions."""
    stored = set()
    fields = [
        Item._meta.get_field(column.removesuffix("_id") if column == "session_id" else column)
        for column in _INSERT_COLUMNS
    ]
    table = connection.ops.quote_name(Item._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(column) for column in _INSERT_COLUMNS)
    placeholders = "(" + ", ".join(["%s"] * len(_INSERT_COLUMNS)) + ")"
    for start in range(0, len(rows), INSERT_BATCH):
        batch = rows[start : start + INSERT_BATCH]
        params = []
        for row in batch:
            for field in fields:
                params.append(field.get_db_prep_save(getattr(row, field.attname), connection))
        sql = (
            f"INSERT INTO {table} ({columns}) VALUES {', '.join([placeholders] * len(batch))} "
            "ON CONFLICT (session_id, epoch, item_key) DO NOTHING RETURNING position"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            stored.update(position for (position,) in cursor.fetchall())
    return stored


def pop(session_id):
    """Remove and return the newest item of the logical history, or None."""
    validation.session_id(session_id)
    with transaction.atomic():
        session = sessions.lock(session_id, missing_ok=True)
        if session is None:
            return None
        session.version += 1
        item = pop_newest(session)
        sessions.save_state(session)
    return item


def pop_newest(session):
    """Take back the newest item of a locked session and everything projecting it changed."""
    row = Item.objects.filter(session=session, epoch=session.epoch).order_by("-position").first()
    if row is None:
        return None
    undo = jsonvalues.loads(row.undo_json) if row.undo_json else {}
    now = timezone.now()

    created = TimelineEntry.objects.filter(session=session, epoch=session.epoch, source_position=row.position)
    for seq in sorted(created.values_list("seq", flat=True), reverse=True):
        TimelineEntry.objects.filter(session=session, epoch=session.epoch, seq=seq).delete()
        TimelineEntry.objects.filter(session=session, epoch=session.epoch, seq__gt=seq).update(seq=F("seq") - 1)
        session.history_count -= 1
    for key, epoch, data in reversed(undo.get("rows", [])):
        TimelineEntry.objects.filter(session=session, epoch=epoch, key=key).update(
            data=data, changed_version=session.version
        )

    opened = ClientAction.objects.filter(session=session, epoch=session.epoch, source_position=row.position)
    session.waiting_count -= opened.filter(status=ClientActionStatus.WAITING).count()
    opened.delete()
    for call_id, fields in reversed(undo.get("actions", [])):
        action = ClientAction.objects.get(session=session, call_id=call_id)
        if fields.get("status") == ClientActionStatus.WAITING and not action.is_waiting:
            session.waiting_count += 1
        for field, value in fields.items():
            if field.endswith("_at") and value:
                value = dialects.parse_timestamp(value)
            setattr(action, field, value)
        action.save(update_fields=list(fields))

    if "runStatus" in undo:
        session.run_status = undo["runStatus"][0]
        if session.parent_id:
            update_parent_of(session, now)
    if row.usage_json:
        session.usage_json = _usage_json(dialects.add_usage(session.usage, jsonvalues.loads(row.usage_json), -1))
    if row.kind == "message":
        refresh_last_message(session)
    session.item_count -= 1
    row.delete()
    return row.value


def clear(session_id):
    """Remove every item, timeline entry, client action and operation; the session stays."""
    validation.session_id(session_id)
    with transaction.atomic():
        session = sessions.lock(session_id, missing_ok=True)
        if session is None:
            return
        for model in (Item, TimelineEntry, ClientAction):
            model.objects.filter(session=session).delete()
        session.operations.all().delete()
        session.version += 1
        session.item_count = session.history_count = session.waiting_count = 0
        session.usage_json = None
        session.last_message = ""
        session.run_status = None
        sessions.save_state(session)
        if session.parent_id:
            update_parent_of(session, timezone.now())


def replace(session_id, items, agent=None):
    """The logical history becomes exactly these items (truncation); returns itemCount."""
    validation.session_id(session_id)
    if agent:
        validation.identifier(agent, "agent")
    checked = validation.items(items)
    with transaction.atomic():
        session = sessions.lock_or_create(session_id, agent or "default")
        session.version += 1
        truncate_current_epoch(session)
        store(session, checked)
        sessions.save_state(session)
    return session.item_count


def truncate_current_epoch(session):
    """Drop the current epoch's items and what they projected, keeping entries the API made."""
    epoch = session.epoch
    Item.objects.filter(session=session, epoch=epoch).delete()
    TimelineEntry.objects.filter(session=session, epoch=epoch, source_position__isnull=False).delete()
    ClientAction.objects.filter(session=session, epoch=epoch, source_position__isnull=False).delete()
    session.item_count = 0
    session.history_count = resequence(session)
    session.waiting_count = session.client_actions.filter(status=ClientActionStatus.WAITING).count()
    if session.waiting_count == 0 and session.run_status == RunStatus.WAITING_FOR_CLIENT_ACTION:
        session.run_status = RunStatus.RUNNING
    session.usage_json = _usage_json(_stored_usage(session))
    refresh_last_message(session)


def compact(session_id, items):
    """Archive the logical history and start a new one from a compaction item (API.md)."""
    validation.session_id(session_id)
    checked = validation.items(items)
    if not checked or dialects.item_type(checked[0][0]) != "compaction":
        raise InvalidInput('items[0] must be an item of type "compaction".')
    with transaction.atomic():
        session = sessions.lock_or_create(session_id, "default")
        if session.item_count == len(checked) and jsonvalues.equal(
            [row.value for row in logical_rows(session)], [item for item, _ in checked]
        ):
            return False, session.item_count
        session.version += 1
        session.epoch += 1
        session.item_count = 0
        # Usage sums the logical history, which starts again here.
        session.usage_json = None
        # Waiting actions opened through the API stay in view; the rest is archived.
        TimelineEntry.objects.filter(
            session=session,
            source_position__isnull=True,
            type="client_action",
            key__in=[
                f"client-action:{call_id}"
                for call_id in session.client_actions.filter(status=ClientActionStatus.WAITING).values_list(
                    "call_id", flat=True
                )
            ],
        ).update(epoch=session.epoch)
        session.history_count = resequence(session)
        store(session, checked)
        refresh_last_message(session)
        sessions.save_state(session)
    return True, session.item_count


def resequence(session):
    """Number the current epoch's entries 1…n in order again; returns n."""
    entries = list(TimelineEntry.objects.filter(session=session, epoch=session.epoch).order_by("order", "pk"))
    for seq, entry in enumerate(entries, start=1):
        entry.seq = seq
    TimelineEntry.objects.bulk_update(entries, ["seq"], batch_size=500)
    return len(entries)


def refresh_last_message(session):
    entry = (
        TimelineEntry.objects.filter(session=session, epoch=session.epoch, type="message")
        .order_by("-seq")
        .only("text", "data")
        .first()
    )
    if entry is None:
        session.last_message = ""
    else:
        session.last_message = (entry.text or f"[{entry.value['content'][0]['type']}]")[:300]


def _stored_usage(session):
    """The usage of the logical history's items, summed."""
    total = None
    for usage_json in Item.objects.filter(session=session, epoch=session.epoch, usage_json__isnull=False).values_list(
        "usage_json", flat=True
    ):
        total = dialects.add_usage(total, jsonvalues.loads(usage_json))
    return total


def _usage_json(usage):
    return jsonvalues.dumps(usage) if usage else None


# Reading ---------------------------------------------------------------------


def logical_rows(session):
    return Item.objects.filter(session=session, epoch=session.epoch).order_by("position")


def newest(session, count):
    """The newest ``count`` items of the logical history, chronological."""
    if count <= 0:
        return []
    rows = list(Item.objects.filter(session=session, epoch=session.epoch).order_by("-position")[:count])
    return [row.value for row in reversed(rows)]


def iter_item_texts(session_id, limit=None):
    """The logical history as stored JSON texts, chronological, read in bounded chunks.

    The upper bound is fixed when reading starts, so a writer appending while
    the answer streams does not make it longer than the history was.
    """
    session = Session.objects.filter(pk=session_id).only("epoch", "item_count").first()
    if session is None or limit == 0:
        return
    rows = Item.objects.filter(session=session, epoch=session.epoch)
    bounds = rows.aggregate(last=Max("position"))
    if bounds["last"] is None:
        return
    after = 0
    # A limit of at least the item count means every item; the database is not
    # asked for an offset that may not fit its integers.
    if limit is not None and limit < session.item_count:
        start = rows.order_by("-position").values_list("position", flat=True)[limit - 1 : limit]
        after = start[0] - 1 if start else 0
    while True:
        chunk = list(
            rows.filter(position__gt=after, position__lte=bounds["last"])
            .order_by("position")
            .values_list("position", "data")[:STREAM_CHUNK]
        )
        for _position, data in chunk:
            yield data
        if len(chunk) < STREAM_CHUNK:
            return
        after = chunk[-1][0]

"""HistoryHub's own rows written with no Python projection in the way: the schema's lower bound.

The rows are the ones the domain wrote for the same items, read back from a
source session and prepared for the database beforehand, so what is timed is
only the writing: per batch one transaction that inserts the batch's item log
rows and the timeline rows they placed (plain ``executemany``, or ``COPY`` on
PostgreSQL) and touches the session row. An output that later changed its
call's timeline row is written in its final state, so this bound is, if
anything, optimistic. Needs Django set up.
"""

from django.db import connection, transaction
from django.utils import timezone

from bench.hub import LOG_MODEL, SESSION_MODEL, TIMELINE_MODEL

METHODS = ("executemany", "copy")


def columns(model):
    """The columns an insert writes: every concrete field but a generated key."""
    return [field for field in model._meta.concrete_fields if not field.auto_created]


def _prepared(model, objects, session_fields):
    fields = columns(model)
    rows = [[field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields] for row in objects]
    names = [field.attname for field in fields]
    return fields, rows, [names.index(name) for name in session_fields]


class Table:
    """Rows of one model, prepared for the database (``pre_save`` is not run: timestamps stay as they are).

    ``session_fields`` hold the session's id, and take the id of the session the rows are written for (the
    sessions of the default project, which the benchmarks use, have their id as their key)."""

    def __init__(self, model, objects, *session_fields):
        self.fields, self.rows, self.session_indexes = _prepared(model, objects, session_fields)
        self.name = connection.ops.quote_name(model._meta.db_table)
        self.column_list = ", ".join(connection.ops.quote_name(field.column) for field in self.fields)

    def for_session(self, session_id, rows):
        for row in rows:
            row = list(row)
            for index in self.session_indexes:
                row[index] = session_id
            yield row

    def write(self, cursor, session_id, rows, method):
        """Insert rows under another session id."""
        self.insert(cursor, self.for_session(session_id, rows), method)

    def insert(self, cursor, rows, method):
        rows = list(rows)
        if not rows:
            return
        if method == "copy":
            with cursor.cursor.copy(f"COPY {self.name} ({self.column_list}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(self.fields))
            cursor.executemany(f"INSERT INTO {self.name} ({self.column_list}) VALUES ({placeholders})", rows)


class SessionRows:
    """What the domain stored for one session, ready to be written again under other session ids."""

    def __init__(self, source_session_id, batch_size):
        source = SESSION_MODEL.objects.filter(pk=source_session_id)
        self.session = Table(SESSION_MODEL, source, "id", "session_id")
        log = LOG_MODEL.objects.filter(session_id=source_session_id).order_by("position")
        self.log = Table(LOG_MODEL, log, "session_id")
        timeline = TIMELINE_MODEL.objects.filter(session_id=source_session_id).order_by("order")
        self.timeline = Table(TIMELINE_MODEL, timeline, "session_id")
        self.batches = self._batches(log, timeline, batch_size)

    def _batches(self, log, timeline, batch_size):
        """(log rows, timeline rows) a batch: the timeline rows placed by the batch's positions."""
        positions = list(log.values_list("position", flat=True))
        orders = list(timeline.values_list("order", flat=True))
        batches, start = [], 0
        for first in range(0, len(positions), batch_size):
            last_position = positions[min(first + batch_size, len(positions)) - 1]
            end = start
            while end < len(orders) and orders[end] <= last_position:
                end += 1
            batches.append((self.log.rows[first : first + batch_size], self.timeline.rows[start:end]))
            start = end
        return batches

    @property
    def item_rows(self):
        return len(self.log.rows)

    def write(self, session_id, method):
        """Write every batch under ``session_id``, one transaction a batch."""
        touch = (
            f"UPDATE {self.session.name} SET {connection.ops.quote_name('updated_at')} = %s "
            f"WHERE {connection.ops.quote_name('id')} = %s"
        )
        for index, (log_rows, timeline_rows) in enumerate(self.batches):
            with transaction.atomic(), connection.cursor() as cursor:
                if index == 0:
                    self.session.write(cursor, session_id, self.session.rows, method)
                self.log.write(cursor, session_id, log_rows, method)
                self.timeline.write(cursor, session_id, timeline_rows, method)
                cursor.execute(touch, [connection.ops.adapt_datetimefield_value(timezone.now()), session_id])

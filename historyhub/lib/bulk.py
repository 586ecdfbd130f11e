"""Writing many rows in one statement, with no model instance per row; and the few statements every
write runs (the session's lock and its save), prepared once rather than compiled by the ORM each time.

A batch of items writes its log rows and timeline entries here: PostgreSQL
takes a large batch through COPY and a small one (a turn) in one multi-row
INSERT, a round trip less than COPY's two; SQLite takes one prepared INSERT run
for every row. Django's ``bulk_create`` would build a model instance per row
and format every parameter of a large INSERT in Python, which costs more than
the rows.
"""

import functools
import time
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeAlias, TypeVar
from uuid import UUID

from django.db import connection, models
from django.db.models.expressions import Col

M = TypeVar("M", bound=models.Model)
# What a raw statement takes as a parameter (psycopg and sqlite3 adapt each).
Value: TypeAlias = bool | int | float | Decimal | str | bytes | date | UUID | None
Row: TypeAlias = Sequence[Value]
# An SQL expression and its parameters, for a statement's RETURNING clause.
Returning: TypeAlias = tuple[str, Sequence[Value]]

# Below this many rows a multi-row INSERT costs PostgreSQL less than COPY's extra round trip.
COPY_FROM = 20


def insert(model: type[models.Model], columns: Sequence[str], rows: Sequence[Row]) -> None:
    """Insert rows, each a tuple of values in ``columns`` order (database values: see ``datetime_value``)."""
    if not rows:
        return
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    placeholders = "(" + ", ".join(["%s"] * len(columns)) + ")"
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES {placeholders}", rows)
        elif len(rows) < COPY_FROM:
            values = ", ".join([placeholders] * len(rows))
            cursor.execute(f"INSERT INTO {table} ({names}) VALUES {values}", [value for row in rows for value in row])
        else:
            # psycopg's own cursor: its errors are made Django's here, as Django's cursor does for its
            # statements, so a connection lost mid-COPY is an OperationalError (503), not a crash.
            statement = f"COPY {table} ({names}) FROM STDIN"
            started = time.monotonic()
            with connection.wrap_database_errors, cursor.cursor.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)
            if connection.queries_logged:
                # Logged as Django logs its own statements, so what counts them (tests, the benchmark) sees it.
                connection.queries_log.append(
                    {"sql": f"{statement} ({len(rows)} rows)", "time": f"{time.monotonic() - started:.3f}"}
                )


def update(model: type[models.Model], columns: Sequence[str], rows: Sequence[Row]) -> None:
    """Set ``columns`` of rows by primary key; each row is (value, …, pk)."""
    if not rows:
        return
    table = connection.ops.quote_name(model._meta.db_table)
    assignments = ", ".join(f"{connection.ops.quote_name(column)} = %s" for column in columns)
    pk = _column(model._meta.pk)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET {assignments} WHERE {pk} = %s", rows)


def datetime_value(moment: datetime) -> Value:
    """An aware datetime as the database column takes it from a raw statement."""
    if connection.vendor == "postgresql":
        return moment
    # SQLite keeps UTC text, as Django writes it.
    return connection.ops.adapt_datetimefield_value(moment)


@functools.cache
def _select_sql(model: type[models.Model], name: str, lock: str) -> str:
    table = connection.ops.quote_name(model._meta.db_table)
    columns = ", ".join(_column(field) for field in model._meta.concrete_fields)
    return f"SELECT {columns} FROM {table} WHERE {_column(model._meta.get_field(name))} = %s{lock}"


def select_for_update(model: type[M], pk: Value) -> M | None:
    """The row, locked for this transaction, as a model instance; None when there is none."""
    # SQLite has no row locks: its IMMEDIATE transaction already holds the database's write lock.
    lock = " FOR UPDATE" if connection.vendor == "postgresql" else ""
    return _instance(model, _select_sql(model, model._meta.pk.name, lock), pk)


def get(model: type[M], name: str, value: Value) -> M | None:
    """The row whose unique field ``name`` holds ``value``, as a model instance; None when there is none."""
    return _instance(model, _select_sql(model, name, ""), value)


def _instance(model: type[M], sql: str, value: Value) -> M | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, [value])
        row = cursor.fetchone()
    if row is None:
        return None
    fields = model._meta.concrete_fields
    values = [_from_db(field.cached_col, value) for field, value in zip(fields, row, strict=True)]
    return model.from_db(connection.alias, [field.attname for field in fields], values)


def _from_db(column: Col, value: object) -> object:
    """A column's value as the ORM would read it (SQLite's text datetimes, say)."""
    for converter in connection.ops.get_db_converters(column) + column.get_db_converters(connection):
        value = converter(value, column, connection)
    return value


@functools.cache
def _update_sql(model: type[models.Model], names: tuple[str, ...]) -> tuple[str, list[Any]]:
    table = connection.ops.quote_name(model._meta.db_table)
    fields = [model._meta.get_field(name) for name in names]
    assignments = ", ".join(f"{_column(field)} = %s" for field in fields)
    return f"UPDATE {table} SET {assignments} WHERE {_column(model._meta.pk)} = %s", fields


def _column(field: object) -> str:
    """The quoted column of a concrete field (a relation's reverse side or a many-to-many has none of its own)."""
    if not isinstance(field, models.Field) or field.column is None:
        raise TypeError(f"{field!r} has no column of its own")
    return connection.ops.quote_name(field.column)


def save_fields(instance: models.Model, names: Iterable[str], returning: Returning | None = None) -> int:
    """``instance.save(update_fields=names)`` in one prepared statement (no signals: the domain's models send none);
    returns how many rows it changed (1, or 0 when the row is gone).

    ``returning`` is an SQL expression and its parameters that the statement evaluates for the row it
    changed (PostgreSQL's ``RETURNING``): a call that must happen with the update, in its round trip.
    """
    sql, fields = _update_sql(type(instance), tuple(names))
    values = [field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields]
    parameters = [*values, instance.pk]
    if returning is not None:
        expression, more = returning
        sql = f"{sql} RETURNING {expression}"
        parameters.extend(more)
    with connection.cursor() as cursor:
        cursor.execute(sql, parameters)
        changed: int = cursor.rowcount
    return changed


@functools.cache
def _insert_if_absent_sql(model: type[models.Model]) -> tuple[str, list[Any]]:
    table = connection.ops.quote_name(model._meta.db_table)
    fields = list(model._meta.concrete_fields)
    columns = ", ".join(_column(field) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    # Both databases' upsert clause: only a unique value already taken is passed over; any other
    # constraint still refuses the row.
    return f"INSERT INTO {table} ({columns}) VALUES ({placeholders}) ON CONFLICT DO NOTHING", fields


def insert_if_absent(instance: models.Model) -> bool:
    """Insert ``instance`` (its primary key set by the caller) unless a row holds one of its unique values
    already; True when this call inserted it.

    Of concurrent inserters exactly one wins and the others learn it from the answer, where
    ``save(force_insert=True)`` would raise and need a savepoint around it (two more round trips).
    """
    sql, fields = _insert_if_absent_sql(type(instance))
    values = [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        inserted: bool = cursor.rowcount == 1
    return inserted

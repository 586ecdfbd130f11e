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

from django.db import connection

# Below this many rows a multi-row INSERT costs PostgreSQL less than COPY's extra round trip.
COPY_FROM = 20


def insert(model, columns, rows):
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
            with connection.wrap_database_errors, cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)


def update(model, columns, rows):
    """Set ``columns`` of rows by primary key; each row is (value, …, pk)."""
    if not rows:
        return
    table = connection.ops.quote_name(model._meta.db_table)
    assignments = ", ".join(f"{connection.ops.quote_name(column)} = %s" for column in columns)
    pk = connection.ops.quote_name(model._meta.pk.column)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {table} SET {assignments} WHERE {pk} = %s", rows)


def datetime_value(moment):
    """An aware datetime as the database column takes it from a raw statement."""
    if connection.vendor == "postgresql":
        return moment
    # SQLite keeps UTC text, as Django writes it.
    return connection.ops.adapt_datetimefield_value(moment)


@functools.cache
def _select_for_update_sql(model, vendor):
    table = connection.ops.quote_name(model._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(field.column) for field in model._meta.concrete_fields)
    pk = connection.ops.quote_name(model._meta.pk.column)
    # SQLite has no row locks: its IMMEDIATE transaction already holds the database's write lock.
    lock = " FOR UPDATE" if vendor == "postgresql" else ""
    return f"SELECT {columns} FROM {table} WHERE {pk} = %s{lock}"


def select_for_update(model, pk):
    """The row, locked for this transaction, as a model instance; None when there is none."""
    with connection.cursor() as cursor:
        cursor.execute(_select_for_update_sql(model, connection.vendor), [pk])
        row = cursor.fetchone()
    if row is None:
        return None
    fields = model._meta.concrete_fields
    values = [_from_db(field.cached_col, value) for field, value in zip(fields, row, strict=True)]
    return model.from_db(connection.alias, [field.attname for field in fields], values)


def _from_db(column, value):
    """A column's value as the ORM would read it (SQLite's text datetimes, say)."""
    for converter in connection.ops.get_db_converters(column) + column.get_db_converters(connection):
        value = converter(value, column, connection)
    return value


@functools.cache
def _update_sql(model, names):
    table = connection.ops.quote_name(model._meta.db_table)
    fields = [model._meta.get_field(name) for name in names]
    assignments = ", ".join(f"{connection.ops.quote_name(field.column)} = %s" for field in fields)
    return f"UPDATE {table} SET {assignments} WHERE {connection.ops.quote_name(model._meta.pk.column)} = %s", fields


def save_fields(instance, names):
    """``instance.save(update_fields=names)`` in one prepared statement (no signals: the domain's models send none)."""
    sql, fields = _update_sql(type(instance), tuple(names))
    values = [field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, instance.pk])

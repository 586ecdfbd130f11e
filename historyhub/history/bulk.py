"""Writing many rows in one statement, with no model instance per row.

A batch of items writes its log rows and timeline entries here: PostgreSQL
takes a large batch through COPY and a small one (a turn) in one multi-row
INSERT, a round trip less than COPY's two; SQLite takes one prepared INSERT run
for every row. Django's ``bulk_create`` would build a model instance per row
and format every parameter of a large INSERT in Python, which costs more than
the rows.
"""

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

"""Counting the SQL statements a call sends: what a write or a request costs, pinned by tests so that a statement
added to every append or every API call fails one (docs/architecture.md)."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.test.utils import CaptureQueriesContext

# One each per transaction, whatever it does: not what a change to the code adds or saves.
TRANSACTION_CONTROL = {"BEGIN", "COMMIT", "ROLLBACK"}


class Sent(list):
    """The statements sent, BEGIN and COMMIT aside; an executemany counts once."""

    def __str__(self) -> str:
        return "\n".join(f"{number}. {sql[:160]}" for number, sql in enumerate(self, start=1))


@contextmanager
def statements() -> Iterator[Sent]:
    sent = Sent()
    with CaptureQueriesContext(connection) as captured:
        yield sent
    queries = [query["sql"] for query in captured.captured_queries]
    sent.extend(sql for sql in queries if sql.split()[0].upper() not in TRANSACTION_CONTROL)


def on_sqlite(postgresql: int, sqlite_more: int) -> int:
    """The count on the database the suite runs on: SQLite's search index costs a statement of its own where
    PostgreSQL's keeps itself."""
    return postgresql + (sqlite_more if connection.vendor == "sqlite" else 0)

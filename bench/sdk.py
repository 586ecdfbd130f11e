"""The stores an Agents SDK user would pick instead of HistoryHub: the SDK's own
``SQLAlchemySession`` (asyncpg, on the same PostgreSQL server, its own
database) and ``SQLiteSession`` (a file, WAL), called as the SDK calls them.

Their methods are coroutines; ``SdkStore`` runs them on one event loop of its
own, so the harness can time them beside HistoryHub's blocking calls.
"""

import asyncio
import os
import sqlite3
from contextlib import closing

from agents import SQLiteSession
from agents.extensions.memory import SQLAlchemySession
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import create_async_engine

# The SDK sessions' default tables; seeding copies sessions within them.
COPY_STATEMENTS = (
    "INSERT INTO agent_sessions (session_id, created_at, updated_at) "
    "SELECT CAST(:prefix AS TEXT) || SUBSTR(session_id, :cut), created_at, updated_at FROM agent_sessions "
    "WHERE session_id >= :low AND session_id < :high",
    "INSERT INTO agent_messages (session_id, message_data, created_at) "
    "SELECT CAST(:prefix AS TEXT) || SUBSTR(session_id, :cut), message_data, created_at FROM agent_messages "
    "WHERE session_id >= :low AND session_id < :high ORDER BY id",
)


class SdkStore:
    def __init__(self, backend, location):
        """``location``: an asyncpg SQLAlchemy URL for postgresql, a file path for sqlite."""
        self.backend = backend
        self.location = location
        self.loop = asyncio.new_event_loop()
        self.engine = create_async_engine(location) if backend == "postgresql" else None
        self.sessions = {}
        if self.engine is not None:
            # Tables made once up front, as an application does with migrations.
            self.run(SQLAlchemySession("setup", engine=self.engine, create_tables=True).get_items(limit=0))

    @property
    def name(self):
        return "SDK SQLAlchemySession" if self.engine is not None else "SDK SQLiteSession"

    def run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    def session(self, session_id):
        """The SDK session object for an id; made once, outside any timing."""
        if session_id not in self.sessions:
            if self.engine is not None:
                self.sessions[session_id] = SQLAlchemySession(session_id, engine=self.engine)
            else:
                self.sessions[session_id] = SQLiteSession(session_id, self.location)
        return self.sessions[session_id]

    def add_items(self, session_id, items):
        self.run(self.session(session_id).add_items(items))

    def get_items(self, session_id, limit=None):
        return self.run(self.session(session_id).get_items(limit=limit))

    def item_count(self, session_id):
        return len(self.get_items(session_id))

    def statements(self, call):
        """How many SQL statements a call sends (an executemany counts once); None where they cannot be seen."""
        if self.engine is None:
            return None
        sent = []

        def count(*args):
            sent.append(args)

        event.listen(self.engine.sync_engine, "before_cursor_execute", count)
        try:
            call()
        finally:
            event.remove(self.engine.sync_engine, "before_cursor_execute", count)
        return len(sent)

    def synchronous_setting(self):
        """SQLite's PRAGMA synchronous on a connection as the SDK opens one (it sets none), by number."""
        with closing(sqlite3.connect(self.location)) as database:
            return database.execute("PRAGMA synchronous").fetchone()[0]

    def database_bytes(self):
        """How much room the store takes: its PostgreSQL database, or its SQLite file and log."""
        if self.engine is not None:
            return self.run(self._database_bytes())
        paths = (self.location, f"{self.location}-wal")
        return sum(os.path.getsize(path) for path in paths if os.path.exists(path))

    async def _database_bytes(self):
        async with self.engine.connect() as connection:
            return (await connection.execute(text("SELECT pg_database_size(current_database())"))).scalar_one()

    def copy_sessions(self, low, high, prefix):
        """Copy the sessions whose ids lie in [low, high) under ``prefix`` and the rest of their id."""
        params = {"prefix": prefix, "cut": len(low) + 1, "low": low, "high": high}
        if self.engine is not None:
            self.run(self._copy_sessions(params))
            return
        with closing(sqlite3.connect(self.location)) as database, database:
            for statement in COPY_STATEMENTS:
                database.execute(statement, params)

    async def _copy_sessions(self, params):
        async with self.engine.begin() as connection:
            for statement in COPY_STATEMENTS:
                await connection.execute(text(statement), params)

    def close(self):
        for session in self.sessions.values():
            if isinstance(session, SQLiteSession):
                session.close()
        if self.engine is not None:
            self.run(self.engine.dispose())
        self.loop.close()

"""Every call the benchmark makes into HistoryHub's domain and models, in one place.

The domain is being rewritten for speed; when a name changes, this file (and
``raw_rows.py`` for the table layout) is all that should need to follow.
Needs Django set up.
"""

import json
import os

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from historyhub.apikeys.models import ApiKey
from historyhub.history import client_actions, history_pages, item_log, sessions
from historyhub.history.models import ClientAction, ClientActionStatus, Item, Session, TimelineEntry
from historyhub.lib.session_keys import session_key
from historyhub.projects import administration

AGENT = "bench"
# The log and the timeline it projects: the rows an append writes.
LOG_MODEL = Item
TIMELINE_MODEL = TimelineEntry
SESSION_MODEL = Session


def append(session_id, items, agent=AGENT):
    """Append a batch through the domain, as the API's POST …/items does."""
    item_log.append(session_id, items, agent=agent)


def newest_items(session_id, limit):
    """get_items(limit): the newest items, chronological, decoded as an SDK session returns them."""
    return [json.loads(text) for text in item_log.iter_item_texts(session_id, limit)]


def history_page(session_id, page, page_size):
    return history_pages.history(session_id, page, page_size)


def item_count(session_id):
    """The session's itemCount, as the API reports it; 0 for a session that does not exist."""
    if not Session.objects.filter(pk=session_id).exists():
        return 0
    return sessions.snapshot(sessions.get(session_id)).item_count


def create_session(session_id, agent, name, metadata):
    sessions.ensure(agent=agent, session_id=session_id, name=name, metadata=metadata)


def set_status(session_id, status, run_status):
    sessions.update(session_id, status=status, run_status=run_status)


def open_client_action(session_id, call_id, name, arguments):
    client_actions.open_action(session_id, call_id=call_id, name=name, arguments=arguments)


def open_actions_at_the_caps(project, count, name):
    """``count`` waiting client actions in a project of their own (made here), each session waiting on one whose
    arguments and description are as large as the API accepts (HISTORYHUB_MAX_ACTION_FIELD_BYTES each)."""
    cap = settings.HISTORYHUB_MAX_ACTION_FIELD_BYTES
    administration.create_project(project, project.capitalize())
    arguments = {"rows": "r" * (cap - len('{"rows":""}'))}
    description = "d" * cap
    for number in range(count):
        session_id = f"caps-{number}"
        sessions.ensure(agent=AGENT, project=project, session_id=session_id, name=f"At the caps {number}")
        client_actions.open_action(
            session_key(project, session_id),
            call_id=f"call_{number}",
            name=name,
            arguments=arguments,
            description=description,
        )


def index_copied_messages(first_id, end_id):
    """Put the messages of sessions copied row by row (ids in [first_id, end_id)) into SQLite's search
    index, as a write through the domain does (``matching.index_new_entries``); PostgreSQL's index
    keeps itself."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO history_message_search (rowid, text) SELECT id, text FROM history_timelineentry "
                "WHERE session_id >= %s AND session_id < %s AND type = 'message'",
                [first_id, end_id],
            )


def analyze():
    """Gather the planner's statistics, as autovacuum (PostgreSQL) would have on a database this size."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def issue_api_key():
    return ApiKey.issue("bench", "write")[1]


def dashboard_user():
    """A superuser for the dashboard pages (who may see and decide everything)."""
    user, _ = User.objects.get_or_create(username="bench", defaults={"is_staff": True, "is_superuser": True})
    return user


def statements(call):
    """How many SQL statements a call sends through Django, BEGIN and COMMIT aside (an executemany counts once)."""
    with CaptureQueriesContext(connection) as captured:
        call()
    return sum(1 for query in captured.captured_queries if query["sql"].split()[0].upper() not in TRANSACTION_CONTROL)


TRANSACTION_CONTROL = {"BEGIN", "COMMIT", "ROLLBACK"}


def synchronous_setting():
    """SQLite's PRAGMA synchronous on HistoryHub's connection, by name."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        return SQLITE_SYNCHRONOUS[cursor.fetchone()[0]]


SQLITE_SYNCHRONOUS = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


def database_bytes():
    """How much room HistoryHub's database takes: the PostgreSQL database, or the SQLite file and its log."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            return cursor.fetchone()[0]
    name = connection.settings_dict["NAME"]
    return sum(os.path.getsize(path) for path in (name, f"{name}-wal") if os.path.exists(path))


def data_set_facts(big_session_id):
    """What a seeded database holds, for the report's header."""
    return {
        "hub_bytes": database_bytes(),
        "sessions": Session.objects.count(),
        "timeline_rows": TimelineEntry.objects.count(),
        "log_items": Item.objects.count(),
        "waiting_actions": ClientAction.objects.filter(status=ClientActionStatus.WAITING).count(),
        "big_session_items": item_count(big_session_id),
        "big_session_history": history_page(big_session_id, 1, 1).total,
    }

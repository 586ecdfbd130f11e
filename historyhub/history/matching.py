"""Where a search's ``q`` is looked for, and how each database's index finds it (docs/search.md).

A session matches when ``q`` occurs, case-insensitively and every character taken
literally (Django's ``icontains``), in its id, name, agent or a metadata value, or in
the text of one of its messages. Those are two places, each with its own index: the
session's fields, and message text. Each is asked for the sessions it finds among those
the other filters keep, newest first; the answer is the union of the two. A page needs
only the first so many sessions, so each place is asked for only that many: the
database then stops early where a word is common and goes through the index where it
is rare.

For the session fields PostgreSQL chooses between the two itself, from the statistics
ANALYZE keeps on the indexed expressions. For message text its choice goes wrong for a
word of middling frequency (it walks thousands of sessions, reading their messages,
where the index would find the few thousand that hold it at once), so here its own
estimate of how many messages hold ``q`` decides: at most ``EXPECTED_FEW``, and the
sessions are looked up from what the index finds. SQLite has no such estimate, so a
cheap look into its FTS5 index, which stops after ``FEW`` rows, decides there. Either
way the index only narrows: the rows it finds are checked with the same ``icontains``
as a search without it. A ``q`` of fewer than three characters has no trigram to look
up; it is compared with every row.
"""

import json
import re
from typing import NamedTuple

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL

from historyhub.history.models import Session, TimelineEntry

ORDER = ("-updated_at", "id")
# Rows an FTS5 look-up may find for the index to be the faster way (SQLite).
FEW = 2000
# Message entries PostgreSQL may expect to hold q for its trigram index to be the faster way: reading them costs
# a few microseconds each (6,558 in 30 ms, docs/search.md), while walking the sessions newest first costs what it
# takes to come on enough of them, which the planner cannot tell.
EXPECTED_FEW = 20_000
# pg_trgm takes trigrams from runs of letters and digits only: a q without three in a row has none to look up,
# and its index would be read whole.
HAS_TRIGRAM = re.compile(r"[^\W_]{3}")

SESSIONS_SQL = (
    "SELECT session_id FROM history_session_search_key WHERE key IN "
    "(SELECT rowid FROM history_session_search WHERE history_session_search MATCH %s)"
)
MESSAGES_SQL = "SELECT rowid FROM history_message_search WHERE history_message_search MATCH %s"
# A batch's new messages go into SQLite's index in one statement: FTS5 takes one INSERT … SELECT of
# fifty messages several times faster than fifty INSERTs (a trigger's, one per row).
INDEX_NEW_MESSAGES_SQL = (
    "INSERT INTO history_message_search (rowid, text) SELECT id, text FROM history_timelineentry "
    "WHERE session_id = %s AND epoch = %s AND seq > %s AND type = 'message'"
)


def index_new_entries(session, epoch, after_seq):
    """Index the messages a write just added to an epoch's timeline after ``after_seq`` (on SQLite;
    PostgreSQL keeps its own index)."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(INDEX_NEW_MESSAGES_SQL, [session.pk, epoch, after_seq])


def sessions_matching(sessions, q, first=None, ordered=True):
    """The sessions among ``sessions`` that ``q`` finds, in no order.

    With ``first``, only the first ``first`` of them, newest first, are sure to be there
    (what a page and the pages before it show); with ``ordered`` False as well, only some
    ``first`` of them, if there are that many (enough for a count that stops there).
    """
    in_fields = sessions.filter(
        Q(session_id__icontains=q) | Q(name__icontains=q) | Q(agent__icontains=q) | Q(metadata_text__icontains=q)
    )
    if connection.vendor == "sqlite" and len(q) >= 3:
        trigrams = _trigrams(q)
        if _few("history_session_search", trigrams):
            in_fields = in_fields.filter(pk__in=RawSQL(SESSIONS_SQL, [trigrams]))
    messages = messages_holding(q)
    if messages.narrowed:
        in_messages = sessions.filter(pk__in=_looked_up(messages.entries.values("session_id")))
    else:
        in_messages = sessions.filter(Exists(messages.entries.filter(session=OuterRef("pk"))))
    return Session.objects.filter(_either(in_fields, in_messages, first, ordered))


class Messages(NamedTuple):
    entries: QuerySet  # the message entries whose text holds q
    narrowed: bool  # few, by the index: look their sessions up rather than walk the sessions


def messages_holding(q):
    """The message entries whose text holds ``q`` (``icontains``), and whether the index finds few of them: narrowed
    to the rows SQLite's index finds, or as they are on PostgreSQL, whose planner expects few."""
    messages = _entries_holding(q)
    if not messages.narrowed and connection.vendor == "postgresql" and HAS_TRIGRAM.search(q):
        return Messages(messages.entries, narrowed=_expected_rows(messages.entries) <= EXPECTED_FEW)
    return messages


def _entries_holding(q):
    """The message entries whose text holds ``q``, narrowed by SQLite's index when it finds few."""
    entries = TimelineEntry.objects.filter(type="message", text__icontains=q)
    if connection.vendor == "sqlite" and len(q) >= 3:
        trigrams = _trigrams(q)
        if _few("history_message_search", trigrams):
            return Messages(entries.filter(pk__in=RawSQL(MESSAGES_SQL, [trigrams])), narrowed=True)
    return Messages(entries, narrowed=False)


def newest_messages_holding(session_keys, q):
    """{session key: the text of its newest message holding ``q``}, for those of these sessions that have one
    (the sessions page's snippets): one statement, one look into each session's timeline, newest first. Each
    session is looked into anyway, so PostgreSQL's estimate is not asked for."""
    holding = _entries_holding(q).entries
    newest = holding.filter(session=OuterRef("pk")).order_by("-epoch", "-seq").values("text")[:1]
    found = Session.objects.filter(pk__in=session_keys).annotate(text=Subquery(newest)).values_list("pk", "text")
    return {key: text for key, text in found if text is not None}


def _looked_up(session_keys):
    """The keys of sessions to look up, read whole first. On PostgreSQL ``OFFSET 0`` plans the subquery on its own:
    not pulled up into a join, which the planner would walk session by session again, but read from its index."""
    if connection.vendor != "postgresql":
        return session_keys
    sql, params = session_keys.query.sql_with_params()
    return RawSQL(f"{sql} OFFSET 0", params)


def _expected_rows(rows):
    """How many rows PostgreSQL's planner expects the queryset to have: its EXPLAIN, planned and not run."""
    return json.loads(rows.explain(format="json"))[0]["Plan"]["Plan Rows"]


def _either(one, other, first, ordered):
    one, other = one.values("pk").order_by(), other.values("pk").order_by()
    if first is not None and ordered:
        one, other = one.order_by(*ORDER)[:first], other.order_by(*ORDER)[:first]
    elif first is not None:
        # Any ``first`` of each: together at least ``first`` when there are that many, else all of them.
        one, other = one[:first], other[:first]
    if connection.features.supports_slicing_ordering_in_compound:
        # One list of ids: PostgreSQL reads at most 2 × first sessions by primary key.
        return Q(pk__in=one.union(other))
    return Q(pk__in=one) | Q(pk__in=other)


# SQLite's FTS5 trigram index --------------------------------------------------------


def _trigrams(q):
    """An FTS5 query for rows holding every three characters in a row of ``q``, in any order and case:
    more rows than hold q itself, never fewer; ``icontains`` then keeps those that do."""
    pieces = dict.fromkeys(q[start : start + 3] for start in range(len(q) - 2))
    return " AND ".join('"' + piece.replace('"', '""') + '"' for piece in pieces)


def _few(table, trigrams):
    """Whether the index finds at most FEW rows: read from the index alone, it stops at FEW + 1."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM (SELECT rowid FROM {table} WHERE {table} MATCH %s LIMIT %s)", [trigrams, FEW + 1]
        )
        return cursor.fetchone()[0] <= FEW

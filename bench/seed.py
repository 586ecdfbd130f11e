"""The data set the reads, history pages, streaming and dashboard measures run on.

Everything HistoryHub holds is written through its domain, so every
projection is what the domain makes of it; the same items go to the SDK
store beside it. The big session is appended in batches of 1,000. The
dashboard's sessions are seeded the same way for a base set, then copied
under new ids (every table that belongs to a session, generically, with
``INSERT … SELECT``, and on SQLite their messages into the search index as
the domain's writes put them there), because 100,000 sessions through the domain would take
longer than the whole benchmark; the copies' sessions are spread back in time
so the sessions page orders realistically. The waiting client actions are
opened through the domain last, on sessions spread over the whole set, and
the planner's statistics gathered, as autovacuum would have. Needs Django set up.
"""

import random
from datetime import timedelta

from django.db import connection, transaction

from bench import hub
from bench.items import conversation
from bench.raw_rows import Table, columns

BIG_SESSION = "bench-big"
# Base sessions sort between these bounds, copies after them: a range an index can scan.
BASE_PREFIX, BASE_END = "dash-b", "dash-c"
AGENTS = ("support", "billing", "triage", "research", "sales", "onboarding", "returns", "fraud")
FILTER_AGENT = "billing"
STATUSES = (("active", 0.8), ("paused", 0.1), ("completed", 0.1))
RUN_STATUSES = (("running", 0.35), ("completed", 0.4), ("failed", 0.08), ("paused", 0.07), (None, 0.1))
APPEND_BATCH = 1000


def base_id(index):
    return f"{BASE_PREFIX}{index:05d}"


def copy_prefix(copy):
    return f"dash-c{copy:03d}-"


def session_ids(sizes):
    """Every dashboard session id, base sessions first."""
    ids = [base_id(index) for index in range(sizes.dashboard_base)]
    for copy in range(1, sizes.dashboard_copies):
        ids += [copy_prefix(copy) + base_id(index).removeprefix(BASE_PREFIX) for index in range(sizes.dashboard_base)]
    return ids


def _pick(rng, weighted):
    return rng.choices([value for value, _ in weighted], weights=[weight for _, weight in weighted])[0]


def seed(sizes, sdk, progress):
    _big_session(sizes, sdk, progress)
    _base_sessions(sizes, sdk, progress)
    for copy in range(1, sizes.dashboard_copies):
        _copy_base(copy, sizes)
        sdk.copy_sessions(BASE_PREFIX, BASE_END, copy_prefix(copy))
        if copy % 10 == 0:
            progress(f"copied the base sessions {copy} times")
    _waiting_actions(sizes)
    progress("opened the waiting client actions")
    hub.analyze()


def _big_session(sizes, sdk, progress):
    hub.create_session(BIG_SESSION, "support", "A very long session", {"customer": "cus_big"})
    items = conversation(BIG_SESSION, sizes.big_items)
    for start in range(0, len(items), APPEND_BATCH):
        batch = items[start : start + APPEND_BATCH]
        hub.append(BIG_SESSION, batch, agent="support")
        sdk.add_items(BIG_SESSION, batch)
        if (start // APPEND_BATCH) % 50 == 49:
            progress(f"big session: {start + len(batch):,} items")


def _base_sessions(sizes, sdk, progress):
    rng = random.Random("dashboard")
    for index in range(sizes.dashboard_base):
        session_id = base_id(index)
        agent = AGENTS[index % len(AGENTS)]
        metadata = {"customer": f"cus_{rng.randint(1000, 99999)}", "channel": rng.choice(("web", "email", "chat"))}
        hub.create_session(session_id, agent, f"Conversation {index} with {metadata['customer']}", metadata)
        items = conversation(session_id, rng.randint(4, 28))
        hub.append(session_id, items, agent=agent)
        sdk.add_items(session_id, items)
        hub.set_status(session_id, _pick(rng, STATUSES), _pick(rng, RUN_STATUSES))
    progress(f"{sizes.dashboard_base:,} base sessions through the domain")


def _copy_base(copy, sizes):
    """One copy of every base session and of every row that belongs to one."""
    prefix = copy_prefix(copy)
    model = hub.SESSION_MODEL
    base = list(model.objects.filter(pk__gte=BASE_PREFIX, pk__lt=BASE_END).order_by("pk"))
    for index, session in enumerate(base):
        session.id = session.session_id = prefix + session.id.removeprefix(BASE_PREFIX)
        # Older copies further back in time, interleaved with the other copies.
        shift = timedelta(minutes=copy * sizes.dashboard_base + index)
        session.created_at -= shift
        session.updated_at -= shift
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        sessions = Table(model, base, "id")
        sessions.insert(cursor, sessions.rows, "executemany")
        for relation in model._meta.related_objects:
            owner = relation.related_model
            if owner is model or not relation.one_to_many:
                continue
            key = relation.field.column
            names = [quote(field.column) for field in columns(owner)]
            chosen = [
                f"CAST(%s AS TEXT) || SUBSTR({name}, {len(BASE_PREFIX) + 1})" if name == quote(key) else name
                for name in names
            ]
            cursor.execute(
                f"INSERT INTO {quote(owner._meta.db_table)} ({', '.join(names)}) "
                f"SELECT {', '.join(chosen)} FROM {quote(owner._meta.db_table)} "
                f"WHERE {quote(key)} >= %s AND {quote(key)} < %s",
                [prefix, BASE_PREFIX, BASE_END],
            )
        hub.index_copied_messages(prefix, prefix + "\uffff")


def _waiting_actions(sizes):
    """Client actions waiting for a person, on sessions spread over the whole set."""
    ids = session_ids(sizes)
    stride = max(1, len(ids) // sizes.waiting_actions)
    for number in range(sizes.waiting_actions):
        hub.open_client_action(
            ids[(number * stride) % len(ids)],
            f"call_wait_{number}",
            "issue_refund",
            {"order_id": f"{number:08d}", "amount": 25 + number % 400, "reason": "Damaged on arrival"},
        )

"""Ingest: the same realistic items, in batches, into HistoryHub and into the alternatives.

The items are spread over as many sessions as there are HTTP clients, so one
writer and eight write exactly the same sessions. In process: HistoryHub's
domain append, the SDK's store, and HistoryHub's own rows written raw
(executemany, and COPY on PostgreSQL). Over HTTP, when a production server
runs: one client process, and eight at once.
"""

import time

from django.db import connection

from bench import hub
from bench.http_load import Clients
from bench.items import batches, conversation
from bench.plan import HTTP_CLIENTS
from bench.raw_rows import SessionRows
from bench.report import Row, ratio, throughput
from bench.sdk import SdkStore
from bench.timing import median, rounds

LABELS = {
    "hub": "HistoryHub in process",
    "sdk": "the SDK store",
    "executemany": "executemany",
    "copy": "COPY",
    "http1": "HTTP with 1 client",
    f"http{HTTP_CLIENTS}": f"HTTP with {HTTP_CLIENTS} clients",
}


def run(job, progress):
    sizes = job.size
    per_session = sizes.ingest_items // HTTP_CLIENTS
    total = per_session * HTTP_CLIENTS
    seeds = [f"ingest-{number}" for number in range(HTTP_CLIENTS)]
    conversations = [batches(conversation(seed, per_session), sizes.batch) for seed in seeds]
    sdk = SdkStore(job.backend, job.sdk_location)

    def session_ids(name, round_index):
        return [f"ingest-{name}-r{round_index}-{number}" for number in range(HTTP_CLIENTS)]

    # Untimed: a batch each to warm up (connections, compiled queries).
    warmup = batches(conversation("ingest-warmup", sizes.batch), sizes.batch)[0]
    hub.append("ingest-warmup", warmup)
    sdk.add_items("ingest-warmup", warmup)
    # The raw writers copy the rows the domain wrote in the first round, which HistoryHub's writer opens.
    sources = []

    def source_rows():
        if not sources:
            sources.extend(SessionRows(session_id, sizes.batch) for session_id in session_ids("hub", 0))
        return sources

    def writer(name, write, prepare=None):
        """A contender that writes every batch of every session in process, one call a batch."""

        def measure(round_index):
            ids = session_ids(name, round_index)
            for session_id in ids if prepare else ():
                prepare(session_id)
            started = time.perf_counter()
            for session_id, session_batches in zip(ids, conversations, strict=True):
                for batch in session_batches:
                    write(session_id, batch)
            return time.perf_counter() - started

        return measure

    def raw_contender(method):
        def measure(round_index):
            rows_of_sessions = source_rows()
            started = time.perf_counter()
            for session_id, rows in zip(session_ids(method, round_index), rows_of_sessions, strict=True):
                rows.write(session_id, method)
            return time.perf_counter() - started

        return measure

    # The SDK's session objects are made before its clock starts; HistoryHub's domain has none to make.
    contenders = {"hub": writer("hub", hub.append), "sdk": writer("sdk", sdk.add_items, prepare=sdk.session)}
    raw_methods = ["executemany", "copy"] if connection.vendor == "postgresql" else ["executemany"]
    for method in raw_methods:
        contenders[method] = raw_contender(method)
    clients = {}
    if job.server_url:
        api_key = hub.issue_api_key()
        for count in (1, HTTP_CLIENTS):
            clients[count] = Clients(count, job.server_url, api_key)
            clients[count].append([(f"ingest-http-warmup-{count}", "warmup", sizes.batch)], sizes.batch)
            contenders[f"http{count}"] = _http_contender(clients[count], f"http{count}", seeds, per_session, sizes)

    try:
        seconds = rounds(contenders, sizes.rounds)
    finally:
        for client in clients.values():
            client.close()
    progress(f"ingest on {job.backend}: {sizes.rounds} rounds")

    speed = {name: total / median(times) for name, times in seconds.items()}
    stored = _stored(sdk, sources, session_ids, sizes.rounds - 1, contenders)
    # Untimed: what one batch costs in statements, the second batch of a session on each side.
    first, second = batches(conversation("ingest-statements", 2 * sizes.batch), sizes.batch)
    hub.append("ingest-statements", first)
    sdk.add_items("ingest-statements", first)
    statements = {
        "hub": hub.statements(lambda: hub.append("ingest-statements", second)),
        "sdk": sdk.statements(lambda: sdk.add_items("ingest-statements", second)),
    }
    rows = _rows(job, sizes, total, speed, sdk.name, raw_methods, clients, statements)
    rows[0].notes += _notes(job, total, stored, sdk)
    sdk.close()
    return rows


def _http_contender(clients, name, seeds, per_session, sizes):
    def measure(round_index):
        sessions = [(f"ingest-{name}-r{round_index}-{number}", seed, per_session) for number, seed in enumerate(seeds)]
        return clients.append(sessions, sizes.batch)

    return measure


def _stored(sdk, sources, session_ids, last_round, contenders):
    """How many items each contender's last round kept."""
    stored = {}
    for name in contenders:
        ids = session_ids(name, last_round)
        if name == "sdk":
            stored[name] = sum(sdk.item_count(session_id) for session_id in ids)
        elif name in ("executemany", "copy"):
            stored[name] = sum(rows.item_rows for rows in sources)
        else:
            stored[name] = sum(hub.item_count(session_id) for session_id in ids)
    return stored


def _notes(job, total, stored, sdk):
    database = "PostgreSQL" if job.backend == "postgresql" else "SQLite"
    notes = []
    short = [f"{LABELS.get(name, name)} {count:,}" for name, count in stored.items() if count != total]
    if short:
        notes.append(
            f"Ingest ({database}): of the {total:,} items sent, fewer were kept by " + ", ".join(short) + " "
            "(items/s counts the items sent; the raw writers write the rows HistoryHub kept)."
        )
    if job.backend == "sqlite":
        sdk_setting = hub.SQLITE_SYNCHRONOUS[sdk.synchronous_setting()]
        hub_setting = hub.synchronous_setting()
        if sdk_setting != hub_setting:
            notes.append(
                f"Durability differs on SQLite: HistoryHub runs WAL with synchronous={hub_setting}, "
                f"{sdk.name} WAL with synchronous={sdk_setting} (the library's default, as the SDK leaves it)."
            )
    return notes


def _rows(job, sizes, total, speed, sdk_name, raw_methods, clients, statements):
    database = "PostgreSQL" if job.backend == "postgresql" else "SQLite"
    what = f"ingest {total:,} items, batches of {sizes.batch}"
    target = "≥ 0.5× SQLAlchemySession (aim 1.0×)" if job.backend == "postgresql" else "≥ 0.3× SQLiteSession"
    floor = 0.5 if job.backend == "postgresql" else 0.3
    alternative = f"{sdk_name} {throughput(speed['sdk'])}"
    rows = [
        Row(
            f"{what}, in process ({database})",
            throughput(speed["hub"]),
            alternative,
            ratio(speed["hub"], speed["sdk"]),
            target=target,
            met=speed["hub"] / speed["sdk"] >= floor,
        )
    ]
    if statements["sdk"] is not None:
        rows.append(
            Row(
                f"… SQL statements for one batch of {sizes.batch}, BEGIN and COMMIT aside ({database})",
                f"{statements['hub']:,}",
                f"{sdk_name} {statements['sdk']:,}",
                ratio(statements["hub"], statements["sdk"]),
            )
        )
    for method in raw_methods:
        rows.append(
            Row(
                f"… HistoryHub's own rows by plain {LABELS[method]}, no Python projection ({database})",
                throughput(speed[method]),
                alternative,
                ratio(speed[method], speed["sdk"]),
            )
        )
    for count in clients:
        rows.append(
            Row(
                f"… over HTTP to the production server, {count} client{'s' if count > 1 else ''} ({database})",
                throughput(speed[f"http{count}"]),
                f"{sdk_name} in process {throughput(speed['sdk'])}",
                ratio(speed[f"http{count}"], speed["sdk"]),
            )
        )
    return rows

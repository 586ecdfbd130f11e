"""Server time of every dashboard page with 100,000 sessions and 1,000,000 timeline rows.

Seeds a data set once per database and schema, then times each page in process
with Django's test client (logged in, DEBUG off): the sessions page plain, with
each filter, with searches (a common and a rare word of message text, a word of
session names, a metadata value, nothing at all, two letters), on page 2; a
typical session's timeline and the 250,000-message session's; the approvals
page with 1,000 waiting client actions. Prints one table, p50 and p90 per page
and database; it asserts nothing (docs/search.md says what the search pages
exercise).

    make bench-dashboard
    .venv/bin/python bench/dashboard_pages.py --backend postgresql --samples 20

The data set: 1,000 sessions written through the domain (``sessions.ensure``,
``item_log.append`` in one batch each, ``sessions.update``), copied 99 times
under new ids, names and metadata with ``INSERT … SELECT`` (rows that belong to
a session are copied as they are, so every projection stays what the domain
made of it); a few sessions get a rare word through the domain; 1,000 client
actions are opened through the domain; last, one session gets 250,000 messages
through ``item_log.append`` in batches of 1,000, so the most recently updated
session is also the longest.

The benchmark owns its databases: on PostgreSQL the one named by ``--postgres``
(default ``hh_bench_dashboard`` on the server BENCH_POSTGRES_URL names, else on
127.0.0.1) is dropped and made again from a template database,
``<name>_tpl_<key>``, that keeps the seeded data set; on SQLite the seeded file
is kept under ``--data-dir``. The key covers the migrations and the seed itself, so a rerun
skips seeding until either changes.
"""

import argparse
import hashlib
import json
import logging
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
# The server, as `make bench` takes it; the database is the benchmark's own.
DEFAULT_POSTGRES = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432") + "/hh_bench_dashboard"
DEFAULT_DATA_DIR = os.environ.get("BENCH_DATA_DIR", str(Path(tempfile.gettempdir()) / "historyhub-bench-dashboard"))
TARGET_MS = 50

# The data set. Changing any of it (or SEED_VERSION) seeds afresh.
SEED_VERSION = 1
BASE_SESSIONS = 1_000
COPIES = 100  # the base set counts as one
BIG_MESSAGES = 250_000
BIG_BATCH = 1_000
WAITING_ACTIONS = 1_000
BIG_SESSION = "bench-long-session"
AGENTS = ("support", "billing", "triage", "research", "sales", "onboarding", "returns", "fraud")
FILTER_AGENT = "billing"
COMPANY_NAMES = (
    "Acme Globex Initech Umbrella Hooli Vandelay Stark Wayne Wonka Tyrell Cyberdyne Soylent Gringotts Monarch "
    "Oscorp Massive Dynamic Aperture Contoso Fabrikam Northwind Tailspin Adventure Litware Proseware Woodgrove "
    "Fourth Coffee Lucerne Margie Trey Wingtip Alpine Blue Yonder Coho Datum Fineart Graphic Humongous Liberty "
    "Lamna Nod Relecloud Southridge VanArsdel Wide World"
)
COMPANIES = COMPANY_NAMES.split()
TOPICS = ("Refund request", "Billing question", "Delivery delay", "Account access", "Plan change", "Bug report")
NAME_WORD = "Initech"  # a word of session names: one company in every 48 sessions
NAME_WORD_AGENT = "triage"  # the agent of every session that names it
COMMON_WORD = "refund"  # in most sessions' message text
RARE_WORD = "zeppelin"  # in the message text of RARE_SESSIONS sessions, spread over the list
RARE_SESSIONS = 7
METADATA_VALUE = "cus_0031337"  # one session's customer


# The parent: data sets, then one measuring process per database, then the table ---------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite", "both"), default="both")
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES, help="a database the benchmark may drop and make")
    parser.add_argument("--data-dir", default=DEFAULT_DATA_DIR, help="where the SQLite data set is kept")
    parser.add_argument("--samples", type=int, default=30, help="timed requests per page")
    parser.add_argument("--reseed", action="store_true", help="seed again even when a seeded copy exists")
    parser.add_argument("--role", choices=("key", "seed", "measure"), help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        return run_role(args)

    backends = ("postgresql", "sqlite") if args.backend == "both" else (args.backend,)
    results = {}
    for backend in backends:
        if backend == "postgresql":
            database_url = prepare_postgresql(args.postgres, args.reseed)
        else:
            database_url = prepare_sqlite(Path(args.data_dir), args.reseed)
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            role(database_url, "measure", "--out", out.name, "--samples", str(args.samples))
            results[backend] = json.loads(Path(out.name).read_text())
    print_table(results)


def role(database_url, name, *arguments, capture=False):
    """Run this script in a process of its own whose Django uses ``database_url``."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "False",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-dashboard-pages-only",
        # A fixed key: the data set is kept between runs (base64 of "bench-dashboard-pages-only-key!!").
        "FIELD_ENCRYPTION_KEYS": os.environ.get("FIELD_ENCRYPTION_KEYS")
        or "YmVuY2gtZGFzaGJvYXJkLXBhZ2VzLW9ubHkta2V5ISE=",
        # (base64 of "bench-dashboard-pages-receipts!!")
        "RECEIPT_SIGNING_KEYS": os.environ.get("RECEIPT_SIGNING_KEYS")
        or "YmVuY2gtZGFzaGJvYXJkLXBhZ2VzLXJlY2VpcHRzISE=",
        "ALLOWED_HOSTS": "testserver",
        "DJANGO_SETTINGS_MODULE": "historyhub.settings",
    }
    command = [sys.executable, __file__, "--role", name, *arguments]
    done = subprocess.run(command, env=env, check=True, text=True, stdout=subprocess.PIPE if capture else None)
    return done.stdout.strip() if capture else None


def prepare_postgresql(database_url, reseed):
    """The benchmark's database, made from the seeded template (seeded first when there is none)."""
    import psycopg

    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    key = role(database_url, "key", capture=True)
    template = f"{name}_tpl_{key}"
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as admin:
        known = {row[0] for row in admin.execute("SELECT datname FROM pg_database")}
        if reseed or template not in known:
            # Seeded under a working name and renamed when whole: an interrupted seed is never used.
            working = f"{template}_seeding"
            admin.execute(f'DROP DATABASE IF EXISTS "{working}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{working}"')
            role(urlunsplit(parts._replace(path=f"/{working}")), "seed")
            admin.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
            admin.execute(f'ALTER DATABASE "{working}" RENAME TO "{template}"')
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
    return database_url


def prepare_sqlite(data_dir, reseed):
    """A copy of the seeded file (seeded first when there is none)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    database = data_dir / "dashboard.sqlite3"
    key = role(f"sqlite:///{database}", "key", capture=True)
    seeded = data_dir / f"dashboard_{key}.sqlite3"
    if reseed or not seeded.exists():
        working = data_dir / f"dashboard_{key}_seeding.sqlite3"
        remove_sqlite(working)
        role(f"sqlite:///{working}", "seed")
        remove_sqlite(seeded)
        working.rename(seeded)
    remove_sqlite(database)
    shutil.copyfile(seeded, database)
    return f"sqlite:///{database}"


def remove_sqlite(path):
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def print_table(results):
    names = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}
    backends = list(results)
    print()
    for backend in backends:
        print(f"{names[backend]}: {results[backend]['data_set']}")
    header = ["page"] + [f"{names[backend]} p50 / p90 ms" for backend in backends]
    lines = []
    for index, page in enumerate(results[backends[0]]["pages"]):
        cells = [page["name"]]
        for backend in backends:
            measured = results[backend]["pages"][index]
            late = " *" if measured["p90"] >= TARGET_MS else ""
            cells.append(f"{measured['p50']:.1f} / {measured['p90']:.1f}{late}")
        lines.append(cells)
    widths = [max(len(line[column]) for line in [header, *lines]) for column in range(len(header))]
    for line in [header, None, *lines]:
        if line is None:
            print("|" + "|".join("-" * (width + 2) for width in widths) + "|")
        else:
            print("| " + " | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) + " |")
    samples = results[backends[0]]["samples"]
    print(f"\nServer time in process, {samples} samples a page, rounds interleaved; * p90 of {TARGET_MS} ms or more.")


# The roles, each in a process with Django set up on one database --------------------------


def run_role(args):
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    if args.role == "key":
        print(data_set_key())
    elif args.role == "seed":
        seed()
    else:
        Path(args.out).write_text(json.dumps(measure(args.samples)))


def data_set_key():
    """The migrations (names, and this project's own by content) and the seed's parameters."""
    from django.db.migrations.loader import MigrationLoader

    digest = hashlib.sha256()
    loader = MigrationLoader(None, ignore_no_migrations=True)
    for app, name in sorted(loader.disk_migrations):
        digest.update(f"{app}.{name}\n".encode())
        path = Path(sys.modules[loader.disk_migrations[app, name].__module__].__file__)
        if ROOT in path.parents:
            digest.update(path.read_bytes())
    seed_parameters = (SEED_VERSION, BASE_SESSIONS, COPIES, BIG_MESSAGES, WAITING_ACTIONS, RARE_SESSIONS)
    digest.update(repr(seed_parameters).encode())
    return digest.hexdigest()[:12]


# Seeding --------------------------------------------------------------------------------


def base_id(index):
    return f"dash-b{index:04d}"


def copy_id(copy, index):
    return f"dash-c{copy:02d}-{index:04d}"


def customer(copy, index):
    return f"cus_{copy * BASE_SESSIONS + index:07d}"


def name_of(copy, index):
    number = copy * BASE_SESSIONS + index
    return f"{TOPICS[number % len(TOPICS)]} from {COMPANIES[number % len(COMPANIES)]} #{number}"


def metadata_of(copy, index):
    return {"customer": customer(copy, index), "channel": ("web", "email", "chat")[index % 3], "tier": index % 4}


def seed():
    from django.core.management import call_command
    from django.db import connection

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    if connection.vendor == "postgresql":
        # A data set that can be seeded again needs no flush to disk per transaction.
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit = off")
    from django.contrib.auth.models import User

    User.objects.create_superuser("bench", password="bench-dashboard-pages")
    rng = random.Random("dashboard pages")
    seed_base(rng)
    log(f"{BASE_SESSIONS:,} sessions through the domain", started)
    for copy in range(1, COPIES):
        copy_base(copy)
    log(f"copied {COPIES - 1} times", started)
    plant_rare_word()
    open_waiting_actions()
    log(f"{WAITING_ACTIONS:,} waiting client actions", started)
    seed_long_session(rng, started)
    if connection.vendor == "postgresql":
        # What autovacuum would have done by the time anyone looks: statistics and the visibility map.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    log("seeded", started)


def log(what, started):
    print(f"  seed: {what} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)


def words(rng, low, high):
    # The ingest benchmark's vocabulary; imported here, where the seeding child has the repository on its path.
    from bench.items import WORDS

    return " ".join(rng.choices(WORDS, k=rng.randint(low, high))).capitalize() + "."


def conversation(rng, index, messages):
    """User and assistant messages, with a function call and its output in every fourth session."""
    items = []
    for number in range(messages):
        if number % 2 == 0:
            items.append({"role": "user", "content": words(rng, 6, 30)})
        else:
            paragraphs = [words(rng, 15, 60) for _ in range(rng.randint(1, 3))]
            items.append({"role": "assistant", "content": "\n\n".join(paragraphs)})
        if number == 1 and index % 4 == 0:
            call = {"type": "function_call", "call_id": f"call_{index}", "name": "lookup_order"}
            items.append({**call, "arguments": json.dumps({"order_id": f"{index:08d}"})})
            items.append({"type": "function_call_output", "call_id": f"call_{index}", "output": "shipped"})
    return items


def seed_base(rng):
    from django.db import transaction

    from historyhub.history import item_log, sessions

    statuses = ("active",) * 8 + ("paused", "completed")
    run_statuses = ("running",) * 4 + ("completed",) * 4 + ("failed", "paused", None)
    for start in range(0, BASE_SESSIONS, 100):
        with transaction.atomic():
            for index in range(start, start + 100):
                session_id, agent = base_id(index), AGENTS[index % len(AGENTS)]
                sessions.ensure(
                    agent=agent, session_id=session_id, name=name_of(0, index), metadata=metadata_of(0, index)
                )
                # 3 to 12 messages: 7.5 timeline rows a session on average, a call's card besides in every fourth.
                item_log.append(session_id, conversation(rng, index, 3 + index % 10), agent=agent)
                sessions.update(session_id, status=rng.choice(statuses), run_status=rng.choice(run_statuses))


def copy_base(copy):
    """The base sessions under new ids, names, metadata and times, and every row they own, as they are."""
    from django.db import connection, transaction

    from historyhub.history.models import Session
    from historyhub.lib import bulk

    quote = connection.ops.quote_name
    fields = Session._meta.concrete_fields
    rows = []
    for session in Session.objects.filter(pk__gte=base_id(0), pk__lte=base_id(BASE_SESSIONS - 1)).order_by("pk"):
        index = int(session.id.removeprefix(base_id(0)[:-4]))
        session.id = session.session_id = copy_id(copy, index)
        session.name = name_of(copy, index)
        session.metadata = metadata_of(copy, index)
        # Each copy further back in time than the one before, its sessions in the base set's order.
        shift = timedelta(minutes=copy * BASE_SESSIONS)
        session.created_at -= shift
        session.updated_at -= shift
        rows.append(tuple(field.get_db_prep_save(getattr(session, field.attname), connection) for field in fields))
    prefix, cut = copy_id(copy, 0)[:-4], len(base_id(0)[:-4]) + 1
    with transaction.atomic():
        bulk.insert(Session, [field.column for field in fields], rows)
        for relation in Session._meta.related_objects:
            owner = relation.related_model
            if owner is Session or not relation.one_to_many:
                continue
            key = relation.field.column
            columns = [field.column for field in owner._meta.concrete_fields if not field.primary_key]
            chosen = [f"%s || SUBSTR({quote(key)}, {cut})" if column == key else quote(column) for column in columns]
            with connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {quote(owner._meta.db_table)} ({', '.join(quote(c) for c in columns)}) "
                    f"SELECT {', '.join(chosen)} FROM {quote(owner._meta.db_table)} "
                    f"WHERE {quote(key)} >= %s AND {quote(key)} <= %s",
                    [prefix, base_id(0), base_id(BASE_SESSIONS - 1)],
                )


def plant_rare_word():
    """A message with a rare word in a few sessions spread over the list, which keep their place in it."""
    from historyhub.history import item_log
    from historyhub.history.models import Session

    for number in range(RARE_SESSIONS):
        copy = 1 + number * (COPIES - 2) // max(1, RARE_SESSIONS - 1)
        session_id = copy_id(copy, (number * 137) % BASE_SESSIONS)
        updated_at = Session.objects.get(pk=session_id).updated_at
        item_log.append(session_id, [{"role": "user", "content": f"Is the {RARE_WORD} delivery insured?"}])
        Session.objects.filter(pk=session_id).update(updated_at=updated_at)


def open_waiting_actions():
    from django.db import transaction

    from historyhub.history import client_actions

    stride = BASE_SESSIONS * COPIES // WAITING_ACTIONS
    with transaction.atomic():
        for number in range(WAITING_ACTIONS):
            place = number * stride
            copy, index = divmod(place, BASE_SESSIONS)
            client_actions.open_action(
                copy_id(copy, index) if copy else base_id(index),
                call_id=f"call_wait_{number}",
                name="issue_refund",
                arguments={"order_id": f"{number:08d}", "amount": 25 + number % 400, "reason": "Damaged on arrival"},
                description="Refund a damaged order",
            )


def seed_long_session(rng, started):
    from historyhub.history import item_log, sessions

    sessions.ensure(agent="support", session_id=BIG_SESSION, name="A very long conversation", metadata={"tier": 3})
    for start in range(0, BIG_MESSAGES, BIG_BATCH):
        batch = [
            {"role": "user" if number % 2 == 0 else "assistant", "content": words(rng, 6, 40)}
            for number in range(start, start + BIG_BATCH)
        ]
        item_log.append(BIG_SESSION, batch, agent="support")
        if (start // BIG_BATCH) % 50 == 49:
            log(f"long session: {start + BIG_BATCH:,} messages", started)


# Measuring ------------------------------------------------------------------------------


def search(**filters):
    return "/p/default/?" + urlencode(filters)


def pages():
    return {
        "sessions": "/p/default/",
        f"agent filter ({FILTER_AGENT})": search(agent=FILTER_AGENT),
        "status filter (completed)": search(status="completed"),
        "runStatus filter (failed)": search(runStatus="failed"),
        "waiting on a person": search(waiting="on"),
        "page 2": search(page=2),
        f"q: common message word ({COMMON_WORD})": search(q=COMMON_WORD),
        f"q: rare message word ({RARE_WORD})": search(q=RARE_WORD),
        f"q: session-name word ({NAME_WORD})": search(q=NAME_WORD),
        f"q: metadata value ({METADATA_VALUE})": search(q=METADATA_VALUE),
        "q: no match": search(q="quetzalcoatl"),
        "q: two letters (zq)": search(q="zq"),
        f"q: {NAME_WORD} + agent {NAME_WORD_AGENT}, page 2": search(q=NAME_WORD, agent=NAME_WORD_AGENT, page=2),
        "a session's timeline": f"/p/default/sessions/{copy_id(COPIES // 2, BASE_SESSIONS // 8)}/",
        f"the {BIG_MESSAGES:,}-message session's timeline": f"/p/default/sessions/{BIG_SESSION}/",
        f"approvals ({WAITING_ACTIONS:,} waiting)": "/p/default/approvals/",
        "approvals page 2": "/p/default/approvals/?page=2",
    }


def measure(samples):
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client, override_settings

    from historyhub.history.models import ClientAction, Session, TimelineEntry

    # whitenoise looks for collectstatic's output, which these pages do not need.
    warnings.filterwarnings("ignore", "No directory at", UserWarning)
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    data_set = (
        f"{Session.objects.count():,} sessions, {TimelineEntry.objects.count():,} timeline rows, "
        f"{ClientAction.objects.filter(status='waiting').count():,} waiting client actions"
    )
    # Each login says so at INFO.
    logging.getLogger("axes").setLevel(logging.WARNING)
    with override_settings(STORAGES=storages):
        client = Client()
        client.force_login(User.objects.get(username="bench"))
        urls = pages()
        times = {name: [] for name in urls}
        for round_number in range(samples + 2):
            for name, url in urls.items():
                started = time.perf_counter()
                answer = client.get(url, secure=True)
                elapsed = time.perf_counter() - started
                if answer.status_code != 200:
                    raise RuntimeError(f"GET {url} answered {answer.status_code}")
                if round_number >= 2:  # the first two rounds warm up
                    times[name].append(elapsed * 1000)
    print(f"  {connection.vendor}: measured {len(urls)} pages", file=sys.stderr)
    return {
        "data_set": data_set,
        "samples": samples,
        "pages": [
            {"name": name, "p50": statistics.median(values), "p90": percentile(values, 0.9)}
            for name, values in times.items()
        ],
    }


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


if __name__ == "__main__":
    main()

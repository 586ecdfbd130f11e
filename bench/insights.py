"""Insights at scale: the server time of every Insights page and API answer on a seeded project
(docs/insights.md, "Performance"). Not run in CI; asserts nothing (the machine is shared and noisy).

Seeds, in a database of its own made afresh and dropped after (Django's test database for DATABASE_URL):
SESSIONS sessions, ITEMS items (one in ten with token usage) and ACTIONS decided or expired actions spread
over 30 days, plus a few hundred waiting; then times each request REPEAT times in process and prints p50 and
p90 against the 150 ms target.

    DEBUG=True DATABASE_URL=postgres://postgres@127.0.0.1:5432/hh_insights .venv/bin/python bench/insights.py
    DEBUG=True .venv/bin/python bench/insights.py --scale 0.05          # a quick look on SQLite
"""

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "historyhub.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from historyhub.apikeys.models import ApiKey  # noqa: E402
from historyhub.history import usage_hours  # noqa: E402
from historyhub.history.models import ClientAction, Item, Session  # noqa: E402
from historyhub.insights.models import Price  # noqa: E402
from historyhub.lib import jsonvalues, session_keys  # noqa: E402
from historyhub.projects.models import Membership, Role  # noqa: E402

SESSIONS, ITEMS, ACTIONS, WAITING = 100_000, 1_000_000, 100_000, 300
TARGET_MS = 150
BATCH = 5000
AGENTS = ["support", "billing", "research", "ops"]
NAMES = ["issue_refund", "delete_account", "send_email", "update_plan", "wire_money"]
DECISIONS = [("approve", "approved"), ("reject", "rejected"), ("respond", "answered"), ("dismiss", "dismissed")]


def seed(scale, rng):
    now = timezone.now()
    span = timedelta(days=30).total_seconds()
    sessions = []
    for number in range(int(SESSIONS * scale)):
        key = session_keys.session_key("default", f"bench-{number}")
        created = now - timedelta(seconds=rng.random() * span)
        sessions.append(
            Session(
                id=key,
                project_id="default",
                session_id=f"bench-{number}",
                agent=rng.choice(AGENTS),
                metadata_json='{"model":"gpt-5"}',
                created_at=created,
                updated_at=created,
            )
        )
    times = [made.created_at for made in sessions]
    Session.objects.bulk_create(sessions, batch_size=BATCH)
    # auto_now fields are set by save, not bulk_create's values: put the seeded times back.
    for made, created in zip(sessions, times, strict=True):
        made.created_at = made.updated_at = created
    Session.objects.bulk_update(sessions, ["created_at", "updated_at"], batch_size=BATCH)
    keys = [made.pk for made in sessions]
    usage = {"inputTokens": 1200, "outputTokens": 300}
    items, positions = [], dict.fromkeys(keys, 0)
    for number in range(int(ITEMS * scale)):
        key = rng.choice(keys)
        positions[key] += 1
        with_usage = number % 10 == 0
        data = {"role": "assistant", "content": "ok", **({"usage": usage} if with_usage else {})}
        items.append(
            Item(
                session_id=key,
                epoch=0,
                position=positions[key],
                data=jsonvalues.dumps(data),
                usage_json=jsonvalues.dumps(usage) if with_usage else None,
                received_at=now - timedelta(seconds=rng.random() * span),
            )
        )
        if len(items) == BATCH:
            Item.objects.bulk_create(items)
            items = []
    Item.objects.bulk_create(items)
    actions = []
    for number in range(int(ACTIONS * scale) + WAITING):
        created = now - timedelta(seconds=rng.random() * span)
        waiting = number >= int(ACTIONS * scale)
        decision, status = rng.choice(DECISIONS)
        expired = not waiting and number % 15 == 0
        resolved = created + timedelta(seconds=rng.expovariate(1 / 900))
        actions.append(
            ClientAction(
                session_id=rng.choice(keys),
                call_id=f"call-{number}",
                name=rng.choice(NAMES),
                created_at=created,
                status="waiting" if waiting else ("expired" if expired else status),
                decision="" if waiting or expired else decision,
                resolved_at=None if waiting else resolved,
                expires_at=resolved if expired else None,
                resolved_by="" if waiting or expired else rng.choice(["ann", "bob", "carol"]),
            )
        )
    ClientAction.objects.bulk_create(actions, batch_size=BATCH)
    # Rows written by hand: tallied as the migration tallies the rows it finds (history.usage_hours).
    usage_hours.add(usage_hours.everything())
    Price.objects.create(project_id="default", model="gpt-5", input_per_million=2, output_per_million=8)


def timed(client, url, repeat, **headers):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code, response.content[:300])
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.9))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="Fraction of the full data set (1.0).")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--keep",
        action="store_true",
        help="Keep the seeded database for the next run, and seed only when it holds no session (its migrations run).",
    )
    arguments = parser.parse_args()
    setup_test_environment()
    database = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False, keepdb=arguments.keep)
    try:
        started = time.perf_counter()
        if not Session.objects.exists():
            seed(arguments.scale, random.Random(7))
        if connection.vendor == "postgresql":
            # As autovacuum leaves tables after a load: their statistics, and the visibility map that lets a range
            # be read from an index alone.
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
        print(
            f"Seeded {Session.objects.count():,} sessions, {Item.objects.count():,} items and "
            f"{ClientAction.objects.count():,} actions on {connection.vendor} in {time.perf_counter() - started:.0f} s"
        )
        key = ApiKey.issue("bench", "read")[1]
        person, _ = User.objects.get_or_create(username="bench-viewer")
        Membership.objects.get_or_create(project_id="default", user=person, defaults={"role": Role.VIEWER})
        api, page = Client(), Client()
        page.force_login(person)
        bearer = {"Authorization": f"Bearer {key}"}
        month_ago = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
        print(f"| request | p50 ms | p90 ms | under {TARGET_MS} ms |")
        print("|---|---|---|---|")
        for label, client, url, headers in [
            ("API approvals, 7 days", api, "/api/v1/insights/approvals", bearer),
            ("API approvals, 30 days", api, f"/api/v1/insights/approvals?from={month_ago}", bearer),
            (
                "API approvals, 30 days, agent=support",
                api,
                f"/api/v1/insights/approvals?agent=support&from={month_ago}",
                bearer,
            ),
            ("API usage, 7 days", api, "/api/v1/insights/usage", bearer),
            ("page, 24 hours", page, "/p/default/insights/?range=24h", {}),
            ("page, 7 days", page, "/p/default/insights/", {}),
            ("page, 30 days", page, "/p/default/insights/?range=30d", {}),
        ]:
            p50, p90 = timed(client, url, arguments.repeat, **headers)
            print(f"| {label} | {p50:.0f} | {p90:.0f} | {'yes' if p90 < TARGET_MS else 'no'} |")
    finally:
        if not arguments.keep:
            connection.creation.destroy_test_db(database, verbosity=0)


if __name__ == "__main__":
    main()

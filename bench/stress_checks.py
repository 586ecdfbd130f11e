"""The invariants a stress run must keep (docs/stress.md), checked against what the clients saw and the database.

``http_checks`` reads the clients' records only, ``attack_checks`` what the attack on the
serving layer and the /healthz probe saw (bench/stress_attack.py); ``database_checks`` needs Django
set up on the run's database. Each check is a ``Check``: a sentence, whether it
held, and the first examples of where it did not.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

EXAMPLES = 5


@dataclass
class Check:
    name: str
    failures: list = field(default_factory=list)
    detail: str = ""

    @property
    def passed(self):
        return not self.failures

    def fail(self, message):
        self.failures.append(message)


def requests_of(records):
    return [entry for record in records for entry in record["requests"]]


# What the clients saw -----------------------------------------------------------------------


def http_checks(records, faults):
    """Statuses and bodies: no 500, JSON only, 503 only while the database was away, nothing left unanswered."""
    requests = requests_of(records)
    checks = []

    no_500 = Check("no answer was a 5xx other than 503")
    for entry in requests:
        if entry["status"] is not None and entry["status"] >= 500 and entry["status"] != 503:
            no_500.fail(f"{entry['op']} {entry['method']}: {entry['status']} {entry.get('text', '')}")
    checks.append(no_500)

    json_only = Check("every answer under /api/ was JSON")
    for entry in requests:
        if entry.get("json") is False:
            json_only.fail(f"{entry['op']}: {entry['status']} {entry.get('text', '')[:100]!r}")
    checks.append(json_only)

    restart = faults["restart"]
    unavailable = Check("503s came only while PostgreSQL restarted, as service_unavailable JSON with Retry-After")
    for entry in requests:
        if entry["status"] != 503:
            continue
        if entry.get("code") != "service_unavailable" or not entry.get("retryAfter"):
            unavailable.fail(f"{entry['op']}: 503 with code {entry.get('code')}, Retry-After {entry.get('retryAfter')}")
        elif not restart["began"] <= entry["t1"] <= restart["window_end"]:
            unavailable.fail(f"{entry['op']}: 503 at {entry['t1'] - faults['start']:.1f} s, outside the restart")
    checks.append(unavailable)

    kill = faults["kill"]
    cut = Check("connections were cut only by the worker SIGKILL")
    for entry in requests:
        if entry["status"] is None and not (entry["t0"] <= kill["at"] + kill["grace"] and entry["t1"] >= kill["at"]):
            cut.fail(f"{entry['op']} at {entry['t0'] - faults['start']:.1f} s: {entry['error']}")
    checks.append(cut)

    answered = Check("every retried write was answered in the end (the service recovered by itself)")
    for record in records:
        if record["unresolved"]:
            answered.fail(f"client {record['client']}: {record['unresolved']} requests never answered")
    checks.append(answered)

    behaved = Check("every answer was the one the contract promises (replays equal, reads see acknowledged writes)")
    for record in records:
        for message in record["violations"]:
            if "never answered" not in message:
                behaved.fail(message)
    checks.append(behaved)
    return checks


def attack_checks(attack, faults):
    """/healthz answered throughout; slow bodies and oversized heads refused (408, 431) or dropped, never served."""
    kill, restart = faults["kill"], faults["restart"]
    probes = Check("every /healthz probe was answered: ok, or 503 unavailable while PostgreSQL restarted")
    for entry in attack["probes"]:
        at = f"probe at {entry['t0'] - faults['start']:.1f} s"
        if entry["outcome"] != "answered":
            # A probe in flight on the killed worker loses its connection like any request.
            if not (entry["t0"] <= kill["at"] + kill["grace"] and entry["t1"] >= kill["at"]):
                probes.fail(f"{at}: {entry['outcome']} {entry.get('error', '')}")
        elif entry["status"] == 503 and entry.get("body") == {"status": "unavailable"}:
            if not restart["began"] <= entry["t1"] <= restart["window_end"]:
                probes.fail(f"{at}: 503 outside the restart")
        elif (entry["status"], entry.get("body")) != (200, {"status": "ok"}):
            probes.fail(f"{at}: {entry['status']} {entry.get('body', entry.get('text'))}")
    if attack["probes"]:
        probes.detail = f"{len(attack['probes'])} probes, the slowest {slowest(attack['probes']):.2f} s"
    checks = [probes]
    for name, entries, refusal in (
        ("every slow body was answered 408 or dropped, none served", "slowBodies", (408, "request_timeout")),
        ("every oversized head was answered 431 or dropped", "oversized", (431, "headers_too_large")),
    ):
        check = Check(name, detail=outcomes(attack[entries]))
        for entry in attack[entries]:
            served = entry["outcome"] == "answered" and (entry["status"], error_code(entry)) != refusal
            if served or entry["outcome"] == "error":
                check.fail(f"at {entry['t0'] - faults['start']:.1f} s: {entry.get('status')} {entry.get('error', '')}")
        checks.append(check)
    return checks


def error_code(entry):
    body = entry.get("body")
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def outcomes(entries):
    """How the server dealt with each attacker, counted: answered by status, dropped, held when the run ended."""
    counts = Counter(f"{entry['status']}" if entry["outcome"] == "answered" else entry["outcome"] for entry in entries)
    return ", ".join(f"{what}: {count}" for what, count in sorted(counts.items()))


def slowest(entries):
    return max((entry["t1"] - entry["t0"] for entry in entries), default=0.0)


def recovery(records, faults):
    """For each fault: the failed requests it caused and when the last of them ended, from the fault on."""
    requests = requests_of(records)
    measured = {}
    for name, began, until in (
        ("kill", faults["kill"]["at"], faults["restart"]["began"]),
        ("restart", faults["restart"]["began"], faults["restart"]["window_end"]),
    ):
        failed = [
            entry
            for entry in requests
            if began <= entry["t1"] <= until and (entry["status"] is None or entry["status"] >= 500)
        ]
        last = max((entry["t1"] for entry in failed), default=began)
        back = any(entry["t0"] >= last and entry["status"] is not None and entry["status"] < 500 for entry in requests)
        measured[name] = {"failed": len(failed), "seconds": last - began, "back": back}
    return measured


# The database -------------------------------------------------------------------------------


def database_checks(records):
    """Every acknowledged item stored once, no half batch, positions, counters, operations and keys."""
    from historyhub.history.models import ClientAction, ClientActionStatus, Item, Operation, Session, TimelineEntry
    from historyhub.idempotency.models import IdempotencyRecord

    sessions = {session.pk: session for session in Session.objects.filter(pk__startswith="stress-")}
    rows = list(Item.objects.filter(session__in=sessions).values_list("session_id", "position", "item_key"))
    stored = Counter(key for _, _, key in rows)
    where = {key: (session, position) for session, position, key in rows}

    batches = [batch for record in records for batch in record["batches"]]
    removed = Counter()
    unknown_pops = Counter()
    for record in records:
        for pop in record["pops"]:
            if pop["token"] is not None:
                removed[pop["token"]] += 1
            elif not pop["known"]:
                unknown_pops[pop["session"]] += 1
        for replaced in record["replaced"]:
            removed.update(replaced["tokens"])
    acknowledged = {token for batch in batches if batch["outcome"] == "acknowledged" for token in batch["tokens"]}
    uncertain = {token for batch in batches if batch["outcome"] == "unknown" for token in batch["tokens"]}
    checks = []

    once = Check("every acknowledged item is stored exactly once", detail=f"{len(acknowledged):,} items")
    for token, count in stored.items():
        if count > 1:
            once.fail(f"{token} is stored {count} times")
    missing = defaultdict(list)
    for token in acknowledged:
        if token not in stored and token not in removed:
            missing[_session_of(token, batches)].append(token)
    for session, tokens in missing.items():
        if len(tokens) > unknown_pops[session]:
            once.fail(f"{session}: acknowledged and never popped, but not stored: {tokens[:EXAMPLES]}")
    checks.append(once)

    popped = Check("no item was popped or replaced twice, and none is stored after it was", detail=f"{len(removed):,}")
    for token, count in removed.items():
        if count > 1:
            popped.fail(f"{token} was taken away {count} times")
        if token in stored:
            popped.fail(f"{token} was taken away but is still stored")
    checks.append(popped)

    refused = Check("nothing refused or never sent is stored")
    for token in stored:
        if token not in acknowledged and token not in uncertain:
            refused.fail(f"{token} is stored, but its request was refused")
    checks.append(refused)

    whole = Check("no half batch: a batch is stored whole, in order, at consecutive positions, or not at all")
    for batch in batches:
        kept = [token in stored or token in removed for token in batch["tokens"]]
        if batch["outcome"] == "acknowledged" and not all(kept) and not unknown_pops[batch["session"]]:
            whole.fail(f"acknowledged batch {batch['tokens'][:3]}… is partly missing")
        if batch["outcome"] == "unknown" and any(kept) and not all(kept):
            whole.fail(f"batch {batch['tokens'][:3]}… whose answer was lost is half stored")
        # Pops take the newest items, so what remains of a batch is its beginning, in order.
        present = [token for token in batch["tokens"] if token in stored]
        if present != batch["tokens"][: len(present)]:
            whole.fail(f"batch {batch['tokens'][:3]}… keeps {present[:3]}…, not its beginning")
        positions = [where[token][1] for token in present]
        if positions and positions != list(range(positions[0], positions[0] + len(positions))):
            whole.fail(f"batch {batch['tokens'][:3]}… stands at positions {positions[:6]}")
    checks.append(whole)

    order = Check("positions are unique and increasing: each client's writes to a session in the order acknowledged")
    seen = Counter((session, position) for session, position, _ in rows)
    for (session, position), count in seen.items():
        if count > 1:
            order.fail(f"{session} has {count} items at position {position}")
    by_client = defaultdict(list)
    for session, position, key in sorted(rows, key=lambda row: (row[0], row[1])):
        if position >= sessions[session].next_position:
            order.fail(f"{session}: item at {position}, but next_position is {sessions[session].next_position}")
        client, number = key[1:].split("-")
        by_client[session, client].append(int(number))
    for (session, client), numbers in by_client.items():
        if numbers != sorted(numbers):
            order.fail(f"{session}: client {client}'s items are out of order")
    checks.append(order)

    counters = Check("counters match rows: itemCount, history count, waiting count, dense timeline ranks")
    timeline = defaultdict(list)
    entries = TimelineEntry.objects.filter(session__in=sessions)
    for session, epoch, seq in entries.values_list("session_id", "epoch", "seq"):
        timeline[session, epoch].append(seq)
    items = Counter(session for session, _, _ in rows)
    waiting = Counter(
        ClientAction.objects.filter(session__in=sessions, status=ClientActionStatus.WAITING).values_list(
            "session_id", flat=True
        )
    )
    for session in sessions.values():
        ranks = sorted(timeline[session.pk, session.epoch])
        if session.item_count != items[session.pk]:
            counters.fail(f"{session.pk}: item_count {session.item_count}, {items[session.pk]} items")
        if session.history_count != len(ranks):
            counters.fail(f"{session.pk}: history_count {session.history_count}, {len(ranks)} timeline entries")
        if ranks != list(range(1, len(ranks) + 1)):
            counters.fail(f"{session.pk}: timeline ranks are not 1…{len(ranks)}")
        if session.waiting_count != waiting[session.pk]:
            counters.fail(f"{session.pk}: waiting_count {session.waiting_count}, {waiting[session.pk]} waiting")
    checks.append(counters)

    operations = {op: value for record in records for op, value in record["operations"].items()}
    applied = Counter(Operation.objects.filter(session__in=sessions).values_list("operation_id", flat=True))
    ops = Check("no operation was applied twice", detail=f"{len(operations):,} operations")
    for op, value in operations.items():
        if applied[op] > 1 or (not value["keyed"] and value["applied"].count(True) > 1):
            ops.fail(f"{op} applied {applied[op]} times, answered applied: true {value['applied'].count(True)} times")
        if value["applied"] and applied[op] != 1:
            ops.fail(f"{op} was answered {value['applied']} but has {applied[op]} records")
    checks.append(ops)

    keys = {key: answers for record in records for key, answers in record["keys"].items()}
    recorded = dict(IdempotencyRecord.objects.values_list("key", "status"))
    keyed = Check(
        "no Idempotency-Key was applied twice: one record per key, every repeat answered alike",
        detail=f"{len(keys):,} keys",
    )
    for key, answers in keys.items():
        if any(answer != answers[0] for answer in answers):
            keyed.fail(f"{key} was answered differently: {[answer[0] for answer in answers]}")
        if answers and recorded.get(key) != answers[0][0]:
            keyed.fail(f"{key} was answered {answers[0][0]}, its record says {recorded.get(key)}")
    reused = defaultdict(list)
    for batch in batches:
        if batch["how"] == "reused key":
            reused[batch["ref"]].append(any(token in stored or token in removed for token in batch["tokens"]))
    for key, applied_bodies in reused.items():
        if applied_bodies.count(True) > 1:
            keyed.fail(f"both requests reusing {key} were applied")
    checks.append(keyed)

    private = Check("each client's own session holds exactly what the client was told it holds")
    for record in records:
        session = sessions.get(record["private"])
        if record["model"] is None or session is None:
            continue
        held = [key for _, _, key in sorted(row for row in rows if row[0] == session.pk)]
        if held != record["model"]:
            private.fail(f"{session.pk} holds {len(held)} items, the client was told {len(record['model'])}")
        open_actions = set(
            ClientAction.objects.filter(session=session, status=ClientActionStatus.WAITING).values_list(
                "call_id", flat=True
            )
        )
        if open_actions != set(record["actions"]["waiting"]):
            private.fail(f"{session.pk}: waiting actions differ from the client's")
    checks.append(private)
    return checks


def _session_of(token, batches):
    return next(batch["session"] for batch in batches if token in batch["tokens"])

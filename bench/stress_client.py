"""One client process of the stress run (docs/stress.md): what an agent does, as hard as it can, and what it saw.

Standard library only: it runs in a process of its own and speaks HTTP. Every
item it sends carries a token as its ``id`` (``c<client>-<n>``, never sent in two
different requests), so the checks can find each item in the database. Every
write that can be retried safely is retried until it is answered: with its
``Idempotency-Key``, or as a transaction with its ``operationId``. Plain appends
without a key are sent once; their outcome may stay unknown, and the checks
then require all of the batch or none of it.

The client writes what it sent and every answer it got to a JSON file.
"""

import http.client
import json
import random
import threading
import time
import urllib.parse

# How long one request may take before the client gives up on it (longer than any server timeout).
REQUEST_TIMEOUT = 60
RETRY_PAUSE = 0.2
SHARED_SESSIONS = 4
# Answers after which a request carrying an Idempotency-Key or an operation id is sent again.
RETRIED = {500, 502, 503, 504}


class Answer:
    def __init__(self, status, headers, body, error=None):
        self.status = status
        self.headers = headers
        self.body = body
        self.error = error

    @property
    def code(self):
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"].get("code")
        return None


class Http:
    """One connection per request, so a request never lands on a connection a killed worker held."""

    def __init__(self, base, key, journal):
        parsed = urllib.parse.urlsplit(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.key = key
        self.journal = journal
        self.lock = threading.Lock()

    def call(self, op, method, path, body=None, headers=None):
        sent = {"Authorization": f"Bearer {self.key}", "Connection": "close", **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        started = time.monotonic()
        entry = {"op": op, "method": method, "t0": started}
        connection = http.client.HTTPConnection(self.host, self.port, timeout=REQUEST_TIMEOUT)
        try:
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            raw = response.read()
            # The message itself, not a dict: header names are case-insensitive, and the server may send them
            # in lower case (HTTP/1.1 allows either).
            answer = Answer(response.status, response.headers, None)
        except (OSError, http.client.HTTPException) as error:
            answer = Answer(None, {}, None, error=f"{type(error).__name__}: {error}")
            raw = b""
        finally:
            connection.close()
        entry["t1"] = time.monotonic()
        entry["status"] = answer.status
        if answer.error:
            entry["error"] = answer.error
        elif raw:
            content_type = answer.headers.get("Content-Type", "")
            entry["json"] = content_type.startswith("application/json")
            try:
                answer.body = json.loads(raw)
            except ValueError:
                entry["json"] = False
                entry["text"] = raw[:200].decode("utf-8", "replace")
            if answer.status == 503:
                entry["code"] = answer.code
                entry["retryAfter"] = answer.headers.get("Retry-After")
        with self.lock:
            self.journal.append(entry)
        return answer


class Client:
    def __init__(self, number, base, keys, seconds, give_up_after, seed):
        self.number = number
        self.rng = random.Random(seed * 1000 + number)
        self.journal = []
        self.http = Http(base, keys.agent, self.journal)
        # Decisions come from the people's key: the agent's own key may not decide what it opened.
        self.people = Http(base, keys.people, self.journal)
        self.end = time.monotonic() + seconds
        self.give_up_at = self.end + give_up_after
        self.private = f"stress-p{number}"
        self.shared = [f"stress-s{n}" for n in range(SHARED_SESSIONS)]
        self.serial = 0
        self.sequence = 0
        # The private session, which only this client writes: exactly what it holds.
        self.model = []
        self.waiting = set()
        self.model_exact = True
        self.record = {
            "client": number,
            "private": self.private,
            "batches": [],
            "pops": [],
            "replaced": [],
            "operations": {},
            "keys": {},
            "actions": {"opened": [], "waiting": []},
            "violations": [],
            "unresolved": 0,
        }

    # Helpers ---------------------------------------------------------------------------------

    def next_serial(self):
        self.serial += 1
        return self.serial

    def violation(self, message):
        self.record["violations"].append(f"client {self.number}: {message}")

    def items(self, count):
        made = []
        while len(made) < count:
            self.sequence += 1
            token = f"c{self.number}-{self.sequence}"
            kind = self.rng.random()
            if kind < 0.45:
                made.append({"id": token, "type": "message", "role": "user", "content": f"question {token}"})
            elif kind < 0.8:
                made.append(
                    {
                        "id": token,
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": f"answer {token}"}],
                    }
                )
            else:
                call = f"call-{token}"
                made.append(
                    {"id": token, "type": "function_call", "call_id": call, "name": "lookup", "arguments": "{}"}
                )
                if len(made) < count:
                    self.sequence += 1
                    output = f"c{self.number}-{self.sequence}"
                    made.append({"id": output, "type": "function_call_output", "call_id": call, "output": "found"})
        return made

    def answered(self, op, method, path, body=None, headers=None, http=None):
        """Send until a decisive answer: a 5xx, a lost connection or request_in_progress is sent again.

        ``http`` is whose key sends it: the agent's unless another is given.
        """
        while True:
            answer = (http or self.http).call(op, method, path, body, headers)
            if answer.status is not None and answer.status not in RETRIED and answer.code != "request_in_progress":
                return answer
            if time.monotonic() > self.give_up_at:
                self.record["unresolved"] += 1
                self.violation(f"{op} {method} {path} was never answered (last: {answer.status or answer.error})")
                return None
            time.sleep(RETRY_PAUSE)

    def raced(self, count, op, method, path, bodies, headers, http=None):
        """The same request (or one per body) sent ``count`` times at once; their answers, in order."""
        answers = [None] * count

        def send(index):
            answers[index] = self.answered(op, method, path, bodies[index], headers, http)

        threads = [threading.Thread(target=send, args=(index,)) for index in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return answers

    def keyed(self, op, method, path, body, race, http=None):
        """A write with an Idempotency-Key, sent once or twice at once; every answer must be the same."""
        key = f"k-{self.number}-{self.next_serial()}"
        answers = self.raced(2 if race else 1, op, method, path, [body, body], {"Idempotency-Key": key}, http)
        seen = self.record["keys"].setdefault(key, [])
        for answer in answers:
            if answer is not None:
                seen.append([answer.status, answer.body])
        settled = [answer for answer in answers if answer is not None]
        if not settled:
            return None
        if any((answer.status, answer.body) != (settled[0].status, settled[0].body) for answer in settled):
            self.violation(f"{op}: two equal requests with key {key} got different answers")
        return settled[0]

    def unexpected(self, op, answer):
        self.violation(f"{op}: unexpected {answer.status} {json.dumps(answer.body)[:300]}")

    def batch(self, session, tokens, how, outcome, ref):
        self.record["batches"].append(
            {"session": session, "tokens": tokens, "how": how, "outcome": outcome, "ref": ref}
        )

    def path(self, session, tail=""):
        return f"/api/v1/sessions/{session}{tail}"

    # Operations --------------------------------------------------------------------------------

    def append(self, private):
        session = self.private if private else self.rng.choice(self.shared)
        items = self.items(self.rng.randint(1, 8))
        tokens = [item["id"] for item in items]
        body = {"items": items, "agent": "stress"}
        if not private and self.rng.random() < 0.4:
            # Once, without a key: if the answer is lost, nobody knows whether it was applied.
            answer = self.http.call("append", "POST", self.path(session, "/items"), body)
            if answer.status == 200:
                self.check_appended(answer, len(items))
                self.batch(session, tokens, "plain", "acknowledged", None)
            elif answer.status is None or answer.status >= 500:
                self.batch(session, tokens, "plain", "unknown", None)
            else:
                self.unexpected("append", answer)
                self.batch(session, tokens, "plain", "refused", None)
            return
        answer = self.keyed("append", "POST", self.path(session, "/items"), body, race=self.rng.random() < 0.3)
        self.settle_write("append", session, items, answer, "keyed", private)

    def check_appended(self, answer, count):
        if answer.body.get("inserted") != [True] * count:
            self.violation(f"append: inserted {answer.body.get('inserted')} for {count} items")

    def settle_write(self, op, session, items, answer, how, private, ref=None):
        tokens = [item["id"] for item in items]
        if answer is None:
            self.batch(session, tokens, how, "unknown", ref)
            self.model_exact = self.model_exact and not private
        elif answer.status in (200, 201):
            if op == "append":
                self.check_appended(answer, len(items))
            self.batch(session, tokens, how, "acknowledged", ref)
            if private:
                self.model.extend(items)
        else:
            self.unexpected(op, answer)
            self.batch(session, tokens, how, "refused", ref)

    def transaction(self, private, replace=False):
        session = self.private if private else self.rng.choice(self.shared)
        operation = f"op-{self.number}-{self.next_serial()}"
        items = self.items(self.rng.randint(1, 6))
        if replace:
            removed = self.model[-self.rng.randint(1, min(2, len(self.model))) :]
            transaction = {"type": "replace_suffix", "expectedSuffix": removed, "replacement": items}
        else:
            removed = []
            transaction = {"type": "append_items", "items": items}
        body = {"operationId": operation, "transaction": transaction}
        # Some also carry an Idempotency-Key; either makes the retry safe.
        headers = {"Idempotency-Key": f"t-{operation}"} if self.rng.random() < 0.3 else None
        path = self.path(session, "/transactions")
        answers = self.raced(2 if self.rng.random() < 0.4 else 1, "transaction", "POST", path, [body, body], headers)
        applied = [answer.body.get("applied") for answer in answers if answer is not None and answer.status == 200]
        # With a key, a repeat is answered with the first answer, applied: true; without, with applied: false.
        self.record["operations"][operation] = {"session": session, "applied": applied, "keyed": headers is not None}
        settled = next((answer for answer in answers if answer is not None), None)
        if settled is not None and settled.status == 200:
            if headers is None and applied.count(True) > 1:
                self.violation(f"transaction {operation} answered applied: true twice")
            if replace:
                self.record["replaced"].append({"session": session, "tokens": [item["id"] for item in removed]})
                del self.model[len(self.model) - len(removed) :]
        self.settle_write("transaction", session, items, settled, "operation", private, ref=operation)

    def pop(self, private):
        session = self.private if private else self.rng.choice(self.shared)
        answer = self.keyed("pop", "POST", self.path(session, "/items/pop"), {}, race=self.rng.random() < 0.3)
        if answer is None:
            self.model_exact = self.model_exact and not private
            self.record["pops"].append({"session": session, "token": None, "known": False})
            return
        if answer.status != 200:
            self.unexpected("pop", answer)
            return
        item = answer.body.get("item")
        token = item.get("id") if isinstance(item, dict) else None
        self.record["pops"].append({"session": session, "token": token, "known": True})
        if private and self.model_exact:
            expected = self.model[-1]["id"] if self.model else None
            if token != expected:
                self.violation(f"pop of {session} returned {token}, expected {expected}")
            if self.model:
                self.model.pop()

    def reused_key(self):
        """Two different requests with one Idempotency-Key at once: exactly one is applied, the other gets 409."""
        session = self.rng.choice(self.shared)
        key = f"r-{self.number}-{self.next_serial()}"
        bodies = [{"items": self.items(self.rng.randint(1, 4)), "agent": "stress"} for _ in range(2)]
        answers = self.raced(2, "reused key", "POST", self.path(session, "/items"), bodies, {"Idempotency-Key": key})
        statuses = sorted(answer.status for answer in answers if answer is not None)
        for body, answer in zip(bodies, answers, strict=True):
            tokens = [item["id"] for item in body["items"]]
            if answer is None:
                self.batch(session, tokens, "reused key", "unknown", key)
            elif answer.status == 200:
                self.batch(session, tokens, "reused key", "acknowledged", key)
            else:
                self.batch(session, tokens, "reused key", "refused", key)
                if answer.code != "idempotency_key_reused":
                    self.unexpected("reused key", answer)
        if len(statuses) == 2 and statuses != [200, 409]:
            self.violation(f"two requests reusing key {key} were answered {statuses}, not 200 and 409")

    def open_action(self):
        call = f"ca-{self.number}-{self.next_serial()}"
        body = {"callId": call, "name": "stress_tool", "arguments": {"call": call}}
        answer = self.keyed("open action", "POST", self.path(self.private, "/client-actions"), body, race=False)
        if answer is None:
            self.model_exact = False
        elif answer.status == 201:
            self.waiting.add(call)
            self.record["actions"]["opened"].append(call)
        else:
            self.unexpected("open action", answer)

    def decide(self):
        call = self.rng.choice(sorted(self.waiting))
        body = {"decision": self.rng.choice(["approve", "reject"])}
        path = self.path(self.private, f"/client-actions/{call}/decision")
        answer = self.keyed("decide", "POST", path, body, race=self.rng.random() < 0.3, http=self.people)
        if answer is None:
            self.model_exact = False
        elif answer.status == 200:
            self.waiting.discard(call)
        else:
            self.unexpected("decide", answer)

    def read(self):
        choice = self.rng.random()
        shared = self.rng.choice(self.shared)
        if choice < 0.25:
            answer = self.http.call("read items", "GET", self.path(self.private, "/items"))
            if answer.status == 200 and self.model_exact:
                got = [item.get("id") for item in answer.body["items"]]
                if got != [item["id"] for item in self.model]:
                    self.violation(f"GET items of {self.private} differs from what was acknowledged")
        elif choice < 0.4:
            answer = self.http.call("read session", "GET", self.path(self.private))
            if answer.status == 200 and self.model_exact:
                if answer.body["itemCount"] != len(self.model):
                    self.violation(f"itemCount of {self.private} is {answer.body['itemCount']}, not {len(self.model)}")
                pending = {action["callId"] for action in answer.body["pendingClientActions"]}
                if pending != self.waiting:
                    self.violation(f"pendingClientActions of {self.private} differ from the waiting actions")
        elif choice < 0.55:
            page = self.rng.randint(1, 3)
            self.http.call("read history", "GET", self.path(shared, f"/history?page={page}&pageSize=20"))
        elif choice < 0.65:
            self.http.call("read entries", "GET", self.path(shared, "/entries"))
        elif choice < 0.75:
            self.http.call("read messages", "GET", self.path(shared, "/messages"))
        elif choice < 0.85:
            self.http.call("read items", "GET", self.path(shared, "/items?limit=20"))
        elif choice < 0.93:
            self.http.call("list sessions", "GET", "/api/v1/sessions?pageSize=20&q=answer")
        else:
            self.http.call("list actions", "GET", "/api/v1/client-actions?status=waiting&pageSize=20")

    # The run ---------------------------------------------------------------------------------

    def step(self):
        roll = self.rng.random()
        private = self.rng.random() < 0.5
        if roll < 0.16:
            self.append(private)
        elif roll < 0.28:
            self.transaction(private)
        elif roll < 0.32 and self.model_exact and self.model:
            self.transaction(True, replace=True)
        elif roll < 0.40:
            self.pop(private)
        elif roll < 0.43:
            self.reused_key()
        elif roll < 0.47 and len(self.waiting) < 5:
            self.open_action()
        elif roll < 0.50 and self.waiting:
            self.decide()
        else:
            self.read()

    def run(self):
        created = self.keyed(
            "create", "POST", "/api/v1/sessions", {"sessionId": self.private, "agent": "stress"}, False
        )
        if created is None or created.status != 201:
            self.violation(f"could not create {self.private}")
        while time.monotonic() < self.end:
            self.step()
        self.record["actions"]["waiting"] = sorted(self.waiting)
        self.record["model"] = [item["id"] for item in self.model] if self.model_exact else None
        self.record["requests"] = self.journal
        return self.record


def run_client(number, base, keys, seconds, give_up_after, seed, output):
    """The entry point of a client process: run, then write the record to ``output``."""
    record = Client(number, base, keys, seconds, give_up_after, seed).run()
    with open(output, "w") as file:
        json.dump(record, file)

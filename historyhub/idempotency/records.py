"""Recording, replaying and pruning the answers to requests that carry an ``Idempotency-Key``.

The database decides which of several requests with one key is applied: the
key's row is inserted with ``INSERT … ON CONFLICT DO NOTHING`` at the start of
the transaction that applies the request, and completed with the answer before
it commits (docs/idempotency.md).
"""

import functools
import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.http import HttpResponse
from django.utils import timezone

from historyhub.faults import error_response
from historyhub.idempotency.models import IdempotencyRecord

REPLAYED_HEADER = "Idempotent-Replayed"
REUSED_MESSAGE = "This Idempotency-Key was already used with a different request."


@dataclass(frozen=True)
class Fingerprint:
    """What makes two requests with one key the same request: method, path and body."""

    method: str
    target: str
    body_digest: str

    @classmethod
    def of(cls, request):
        query = request.META.get("QUERY_STRING", "")
        return cls(request.method, request.path + (f"?{query}" if query else ""), body_digest(request.body))

    def matches(self, record):
        return (self.method, self.target, self.body_digest) == (record.method, record.target, record.body_digest)


def body_digest(body):
    """SHA-256 of the body's canonical form: equal for bodies equal as JSON values.

    Key order and layout do not count and 1 equals 1.0, but true is not 1. An
    empty body is a value of its own, and a body that is not JSON is compared
    byte for byte.
    """
    if not body:
        return _sha256(b"empty")
    try:
        text = json.dumps(_numbers_as_json_compares_them(json.loads(body)), sort_keys=True, separators=(",", ":"))
    except (ValueError, RecursionError):
        return _sha256(b"bytes:" + body)
    return _sha256(b"json:" + text.encode("ascii"))


def _numbers_as_json_compares_them(value):
    """An integral float becomes the int it equals (1.0 -> 1); booleans are not numbers here."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {name: _numbers_as_json_compares_them(member) for name, member in value.items()}
    if isinstance(value, list):
        return [_numbers_as_json_compares_them(member) for member in value]
    return value


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def find(api_key, key):
    """The key's committed record, or None."""
    return IdempotencyRecord.objects.filter(api_key=api_key, key=key, status__isnull=False).first()


def start(api_key, key, fingerprint):
    """Take the key for this request, inside the transaction that will apply it.

    Returns None when this request now holds the key, or the record already
    there. A concurrent request holding the same key makes the insert wait
    until its transaction ends (PostgreSQL's unique index; on SQLite the
    IMMEDIATE transaction already queued behind it): then the key is either
    recorded, and found here, or free again.
    """
    sql, fields = _start_sql()
    row = IdempotencyRecord(
        api_key=api_key,
        key=key,
        method=fingerprint.method,
        target=fingerprint.target,
        body_digest=fingerprint.body_digest,
        created_at=timezone.now(),
    )
    values = [field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields]
    while True:
        with connection.cursor() as cursor:
            cursor.execute(sql, values)
            if cursor.rowcount == 1:
                return None
        # Found unless pruned since the insert looked; then the key is free to take again.
        existing = find(api_key, key)
        if existing is not None:
            return existing


def finish(api_key, key, response):
    """Write the answer into the key's record, in the transaction that applied the request."""
    body = IdempotencyRecord._meta.get_field("body").get_db_prep_save(response.content, connection)
    with connection.cursor() as cursor:
        cursor.execute(_finish_sql(), [response.status_code, response.get("Content-Type", ""), body, api_key.pk, key])


# Every keyed write runs both statements: prepared once, not compiled by the ORM each time.


@functools.cache
def _start_sql():
    fields = [field for field in IdempotencyRecord._meta.concrete_fields if not field.primary_key]
    columns = ", ".join(_column(field.name) for field in fields)
    unique = ", ".join(_column(name) for name in ("api_key", "key"))
    sql = (
        f"INSERT INTO {_table()} ({columns}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) ON CONFLICT ({unique}) DO NOTHING"
    )
    return sql, fields


@functools.cache
def _finish_sql():
    answer = ", ".join(f"{_column(name)} = %s" for name in ("status", "content_type", "body"))
    return f"UPDATE {_table()} SET {answer} WHERE {_column('api_key')} = %s AND {_column('key')} = %s"


def _table():
    return connection.ops.quote_name(IdempotencyRecord._meta.db_table)


def _column(name):
    return connection.ops.quote_name(IdempotencyRecord._meta.get_field(name).column)


def is_recorded(status):
    """2xx and 4xx answers describe the request and are replayed; a 5xx or a 429 leaves the client free to retry."""
    return status < 500 and status != 429


def answer(record, fingerprint):
    """The recorded answer for an equal request; 409 for a different one."""
    if not fingerprint.matches(record):
        return error_response("idempotency_key_reused", REUSED_MESSAGE, 409)
    response = HttpResponse(bytes(record.body), status=record.status, content_type=record.content_type or None)
    response[REPLAYED_HEADER] = "true"
    return response


def prune(now=None):
    """Delete the records older than HISTORYHUB_IDEMPOTENCY_TTL_HOURS; returns how many were deleted."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.HISTORYHUB_IDEMPOTENCY_TTL_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted

"""Helpers of the chain's tests: the rows as stored, and the hash as the contract defines it, computed here
independently of historyhub.audit.chain (hashlib and rfc8785 on the API's row)."""

import hashlib

import rfc8785
from django.db import connection

from historyhub.audit.models import AuditEntry

GENESIS = "sha256:" + "0" * 64


def expected_hash(api_row):
    content = {name: api_row[name] for name in ("seq", "at", "actor", "action", "target", "details")}
    return "sha256:" + hashlib.sha256(api_row["prevHash"].encode() + rfc8785.dumps(content)).hexdigest()


def chain_of(project):
    """(seq, prev_hash, hash) of the project's rows, in seq order."""
    return list(AuditEntry.objects.filter(project=project).order_by("seq").values_list("seq", "prev_hash", "hash"))


def sql(statement, *params):
    """Raw SQL on the audit table, as someone with database access would change it."""
    with connection.cursor() as cursor:
        cursor.execute(statement.replace("{table}", AuditEntry._meta.db_table), params)

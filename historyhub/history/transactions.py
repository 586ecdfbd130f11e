"""Atomic, idempotent history transactions (docs/api.md, "Transactions").

The operation record and the history change are written in one database
transaction, under the session's lock: a failure leaves neither, and of two
requests with one operation id the second sees the first's record. Equal
transactions are recognised as equal JSON values, key order ignored.
"""

from historyhub.history import item_log
from historyhub.history.models import Operation
from historyhub.history.writes import writing
from historyhub.lib import jsonvalues, validation
from historyhub.lib.errors import InvalidInput, OperationConflict, SuffixMismatch

TYPES = ("append_items", "replace_suffix")


def _checked(value):
    """The transaction's item lists, checked before anything is written."""
    if not isinstance(value, dict) or value.get("type") not in TYPES:
        raise InvalidInput('transaction.type must be "append_items" or "replace_suffix".')
    validation.json_value(value, "transaction", envelope=jsonvalues.ENVELOPE_DEPTH)
    if value["type"] == "append_items":
        return {"items": validation.items(value.get("items"), "transaction.items")}
    return {
        "expectedSuffix": validation.items(value.get("expectedSuffix"), "transaction.expectedSuffix"),
        "replacement": validation.items(value.get("replacement"), "transaction.replacement"),
    }


def apply(key, operation_id, value, by_key=None):
    """Apply a transaction once; returns True when applied now, False for a repeat."""
    validation.session_key(key)
    if not isinstance(operation_id, str) or not operation_id.strip():
        raise InvalidInput("operationId must be a non-empty string.")
    validation.identifier(operation_id, "operationId")
    checked = _checked(value)
    with writing(key, create_as="default", by_key=by_key) as write:
        recorded = Operation.objects.filter(session=write.session, operation_id=operation_id).first()
        if recorded is not None:
            if not jsonvalues.equal(recorded.transaction, value):
                raise OperationConflict()
            write.discard()
            return False
        Operation.objects.create(
            session=write.session, operation_id=operation_id, transaction_json=jsonvalues.canonical(value)
        )
        if value["type"] == "append_items":
            item_log.store(write, checked["items"])
        else:
            _replace_suffix(write, checked["expectedSuffix"], checked["replacement"])
    return True


def _replace_suffix(write, expected, replacement):
    rows = list(item_log.logical_rows(write.session).order_by("-position")[: len(expected)]) if expected else []
    if len(rows) != len(expected) or not jsonvalues.equal(
        [row.value for row in reversed(rows)], [item for item, _ in expected]
    ):
        raise SuffixMismatch()
    for row in rows:
        item_log.take_back(write, row)
    item_log.store(write, replacement)

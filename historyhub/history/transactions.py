"""Atomic, idempotent history transactions (API.md, agents-sdk-session.txt).

The operation record and the history change are written in one database
transaction: a failure leaves neither. Equal transactions are recognised as
equal JSON values, key order ignored.
"""

from django.db import IntegrityError, transaction

from historyhub.history import item_log, jsonvalues, sessions, validation
from historyhub.history.errors import InvalidInput, OperationConflict, SuffixMismatch
from historyhub.history.models import Operation

TYPES = ("append_items", "replace_suffix")


def _checked(value):
    """The transaction's item lists, checked before anything is written."""
    if not isinstance(value, dict) or value.get("type") not in TYPES:
        raise InvalidInput('transaction.type must be "append_items" or "replace_suffix".')
    if value["type"] == "append_items":
        return {"items": validation.items(value.get("items"), "transaction.items")}
    return {
        "expectedSuffix": validation.items(value.get("expectedSuffix"), "transaction.expectedSuffix"),
        "replacement": validation.items(value.get("replacement"), "transaction.replacement"),
    }


def apply(session_id, operation_id, value):
    """Apply a transaction once; returns True when applied now, False for a repeat."""
    validation.session_id(session_id)
    if not isinstance(operation_id, str) or not operation_id.strip():
        raise InvalidInput("operationId must be a non-empty string.")
    validation.identifier(operation_id, "operationId")
    checked = _checked(value)
    with transaction.atomic():
        session = sessions.lock_or_create(session_id, "default")
        try:
            with transaction.atomic():
                Operation.objects.create(
                    session=session, operation_id=operation_id, transaction_json=jsonvalues.canonical(value)
                )
        except IntegrityError:
            recorded = Operation.objects.get(session=session, operation_id=operation_id)
            if jsonvalues.equal(recorded.transaction, value):
                return False
            raise OperationConflict() from None
        if value["type"] == "append_items":
            item_log.store(session, checked["items"])
        else:
            _replace_suffix(session, checked["expectedSuffix"], checked["replacement"])
        sessions.save_state(session)
    return True


def _replace_suffix(session, expected, replacement):
    newest = item_log.newest(session, len(expected)) if expected else []
    if len(newest) != len(expected) or not jsonvalues.equal(newest, [item for item, _ in expected]):
        raise SuffixMismatch()
    session.version += 1
    for _ in expected:
        item_log.pop_newest(session)
    item_log.store(session, replacement)

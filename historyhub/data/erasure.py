"""Erasure: every session of a project whose metadata holds one value under one key goes, with all it owns, at
once (docs/data.md, "Erasure"). The API and the dashboard both call ``erase``."""

from django.db import transaction

from historyhub.audit import log as audit_log
from historyhub.history import ownership
from historyhub.history.models import Session
from historyhub.lib import jsonvalues, validation
from historyhub.lib.errors import InvalidInput


class Audited:
    """What this module records in the audit log (historyhub.audit), by name."""

    ERASURE = "erasure"


SCALARS = (str, int, float, bool, type(None))


def check_request(metadata_key, metadata_value):
    validation.identifier(metadata_key, "metadataKey")
    if not isinstance(metadata_value, SCALARS):
        raise InvalidInput("metadataValue must be a string, number, boolean or null, as metadata values are.")
    return validation.json_value(metadata_value, "metadataValue")


def matching(project, metadata_key, metadata_value):
    """The keys of the project's sessions whose metadata has exactly ``metadata_value`` under ``metadata_key``
    (equal as JSON: 1 and 1.0 are one number, true is not 1)."""
    check_request(metadata_key, metadata_value)
    candidates = Session.objects.filter(project=project, metadata_json__contains=jsonvalues.dumps(metadata_key) + ":")
    if isinstance(metadata_value, str):
        # The search column holds every string value: the database narrows, Python decides.
        candidates = candidates.filter(metadata_text__contains=jsonvalues.column_text(metadata_value))
    found = []
    for key, metadata_json in candidates.values_list("pk", "metadata_json").iterator(chunk_size=1000):
        metadata = jsonvalues.loads(metadata_json)
        if metadata_key in metadata and jsonvalues.equal(metadata[metadata_key], metadata_value):
            found.append(key)
    return found


def count(project, metadata_key, metadata_value):
    """How many sessions ``erase`` would delete now, descendants included: what the dashboard asks to confirm."""
    return len(ownership.with_descendants(matching(project, metadata_key, metadata_value)))


def erase(project, metadata_key, metadata_value, *, actor):
    """Delete the matching sessions and their descendants in one transaction, recorded in the audit log with a
    hash of the value, never the value; returns how many went."""
    with transaction.atomic():
        deleted = ownership.delete_sessions(matching(project, metadata_key, metadata_value))
        audit_log.record(
            project,
            actor,
            Audited.ERASURE,
            metadata_key,
            metadataKey=metadata_key,
            valueHash=audit_log.value_hash(metadata_value),
            sessionsDeleted=len(deleted),
        )
    return len(deleted)

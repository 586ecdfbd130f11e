"""The digest of a client action's arguments, as HistoryHub computes it (docs/api.md, "Digests").

``sha256:`` + the lowercase hex SHA-256 of the value's RFC 8785 canonical JSON (the JSON Canonicalization
Scheme, by the ``rfc8785`` package, as on the server), so a bridge can claim the execution of exactly the
arguments it is about to run: the same value gives the same digest whatever its key order or number form
(``1`` and ``1.0`` are one JSON number).

JCS reads every number as an IEEE 754 double, as a JavaScript client parses it: an integer beyond
±(2^53 - 1) is taken as the double nearest to it, as the server takes it. A value JCS cannot write (a
string holding a lone surrogate, NaN or an infinity, an integer beyond any double) has no digest.
"""

import hashlib
from collections.abc import Mapping, Sequence
from typing import TypeAlias

import rfc8785

PREFIX = "sha256:"
# The integers a double holds exactly; JCS (the rfc8785 package) refuses the others as integers.
_SAFE_INTEGER = 2**53 - 1

JSONValue: TypeAlias = "Mapping[str, JSONValue] | Sequence[JSONValue] | str | int | float | bool | None"


class DigestError(ValueError):
    """The value has no canonical JSON (RFC 8785 cannot write it), so it has no digest."""


def canonical_json(value: JSONValue) -> bytes:
    """The RFC 8785 canonical JSON bytes of ``value``; DigestError when JCS cannot write it."""
    try:
        return rfc8785.dumps(_as_doubles(value))
    except (rfc8785.CanonicalizationError, OverflowError) as error:
        raise DigestError(f"These arguments have no canonical JSON (RFC 8785): {error}") from error


def arguments_digest(value: JSONValue) -> str:
    """``sha256:`` + the hex SHA-256 of ``value``'s canonical JSON: the server's argumentsDigest of the same value."""
    return PREFIX + hashlib.sha256(canonical_json(value)).hexdigest()


def _as_doubles(value: JSONValue) -> JSONValue:
    if isinstance(value, Mapping):
        return {key: _as_doubles(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_as_doubles(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE_INTEGER:
        return float(value)  # OverflowError beyond any double
    return value

"""Digests of a client action's arguments (docs/api.md, "Digests").

A digest is ``sha256:`` + the lowercase hex SHA-256 of the value's RFC 8785 canonical JSON (the JSON
Canonicalization Scheme, by the ``rfc8785`` package), so any client can compute the same one from the same value,
whatever its key order, white space or number form (``1`` and ``1.0`` are one number in JSON).

JCS reads every number as an IEEE 754 double, as a JavaScript client parses it: an integer beyond ±(2^53 - 1) is
taken as the double nearest to it, so a JavaScript client, which sees only that double, computes the same digest.
A value JCS cannot write (a string holding a lone surrogate, an integer beyond any double) has no digest: None.
"""

import hashlib

import rfc8785

PREFIX = "sha256:"
# The integers a double holds exactly; JCS (the rfc8785 package) refuses the others as integers.
_SAFE_INTEGER = 2**53 - 1


def canonical(value):
    """The RFC 8785 canonical JSON bytes of ``value``; ``rfc8785.CanonicalizationError`` when JCS cannot write it."""
    return rfc8785.dumps(_as_doubles(value))


def of(value):
    """The digest of a JSON value, or None when JCS cannot write it."""
    try:
        text = canonical(value)
    except (rfc8785.CanonicalizationError, OverflowError):
        return None
    return PREFIX + hashlib.sha256(text).hexdigest()


def _as_doubles(value):
    if isinstance(value, dict):
        return {key: _as_doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_doubles(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE_INTEGER:
        return float(value)  # OverflowError beyond any double
    return value

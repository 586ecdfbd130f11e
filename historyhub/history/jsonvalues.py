"""JSON text in, JSON text out: how agent-supplied values are stored and compared.

Values are stored as compact JSON text. ``json.dumps`` escapes every control
character (``\\u0000`` included), so the text is always safe for a PostgreSQL
text column; lone surrogates, which UTF-8 cannot carry, fall back to ASCII
escapes. Integers keep every digit because Python's json never rounds them.
"""

import json


def dumps(value):
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text


def loads(text):
    return json.loads(text)


def canonical(value):
    """A text that is equal for values that are equal as JSON, key order ignored."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), sort_keys=True, allow_nan=False)


def equal(a, b):
    """Equality of JSON values: key order ignored, 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def size(value):
    """Bytes of the value serialised as UTF-8 JSON."""
    return len(dumps(value).encode("utf-8"))

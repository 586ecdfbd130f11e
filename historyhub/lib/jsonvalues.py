"""JSON text in, JSON text out: how agent-supplied values are stored and compared.

Values are stored as compact JSON text. ``json.dumps`` escapes every control
character (``\\u0000`` included), so the text is always safe for a PostgreSQL
text column; lone surrogates, which UTF-8 cannot carry, are written as ASCII
escapes, and the rest of the text stays readable and searchable. Integers keep
every digit because Python's json never rounds them.

Strings kept outside JSON (ids, names, search text) are plain text columns,
which hold neither NUL nor lone surrogates: ``is_column_text`` says whether a
caller's string can be kept exactly, ``column_text`` makes a derived one fit.

What may come in (docs/api.md, "Limits"): numbers must be finite (``1e400`` is
refused rather than read as infinity) and integers at most 4,300 digits long;
values an agent stores (an item, arguments, an output, metadata) may nest at most
``HISTORYHUB_MAX_JSON_DEPTH`` levels, and what carries them (a request body, a
transaction) that many plus its own few. ``loads_untrusted`` applies both rules
to text from outside, ``check`` to values that arrive already parsed; either
raises ValueError with the reason.
"""

import json
import math
import re
from collections.abc import Iterable
from typing import Any, NoReturn, TypeAlias

from django.conf import settings

# Code points UTF-8 cannot carry: what json.loads makes of an unpaired "\ud800" escape.
_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_COLUMN_TEXT = re.compile("[\x00\ud800-\udfff]")

# A value read from JSON text, as ``json.loads`` gives it: its shape is what the caller knows it stored (a policy,
# an item), so it is read as that; the checks here take any object and say whether it is JSON at all.
JSON: TypeAlias = Any


# Made once: ``json.dumps`` with these options would make an encoder for every value, and a batch of
# items writes several values per item.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps(value: object) -> str:
    """Compact JSON text of a value; ValueError when it holds what JSON cannot carry."""
    try:
        text = _COMPACT.encode(value)
    except RecursionError:
        raise ValueError("is nested too deeply") from None
    except ValueError:
        raise ValueError("holds a number JSON cannot carry (NaN, Infinity or too many digits)") from None
    if text.isascii():
        return text
    # A surrogate can only stand inside a string, where its escape reads back the same.
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def loads(text: str | bytes) -> JSON:
    """Text this application stored (already checked when it came in)."""
    return json.loads(text)


# The levels a request body or a transaction adds around the values it carries.
ENVELOPE_DEPTH = 4


def loads_untrusted(text: str | bytes, envelope: int = 0) -> JSON:
    """Parse text from outside under the intake rules; ValueError says what is wrong."""
    try:
        value = json.loads(text, parse_constant=_not_a_number, parse_float=_finite_float)
    except RecursionError:
        raise ValueError(_too_deep(settings.HISTORYHUB_MAX_JSON_DEPTH + envelope)) from None
    check_depth(value, envelope)
    return value


def check(value: object, envelope: int = 0) -> None:
    """Raise ValueError unless a parsed value keeps the intake rules and is JSON at all."""
    check_depth(value, envelope)
    dumps(value)


def check_depth(value: object, envelope: int = 0) -> None:
    """``envelope`` levels around the stored values are allowed on top of the limit."""
    limit = settings.HISTORYHUB_MAX_JSON_DEPTH + envelope
    pending: list[tuple[dict[Any, object] | list[object], int]] = (
        [(value, 1)] if isinstance(value, (dict, list)) else []
    )
    while pending:
        container, depth = pending.pop()
        if depth > limit:
            raise ValueError(_too_deep(limit))
        children: Iterable[object] = container.values() if isinstance(container, dict) else container
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def _too_deep(limit: int) -> str:
    return f"is nested more than {limit} levels deep"


def _not_a_number(constant: str) -> NoReturn:
    raise ValueError(f"holds {constant}, which is not a JSON number")


def _finite_float(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"holds the number {text[:40]}, which is out of range")
    return number


def canonical(value: object) -> str:
    """A text that is equal for values that are equal as JSON, key order ignored."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), sort_keys=True, allow_nan=False)


def equal(a: object, b: object) -> bool:
    """Equality of JSON values: key order ignored, 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def size(value: object) -> int:
    """Bytes of the value serialised as UTF-8 JSON."""
    return len(dumps(value).encode("utf-8"))


def is_column_text(value: str) -> bool:
    """Whether a text column can keep the string exactly."""
    return _NOT_COLUMN_TEXT.search(value) is None


def column_text(value: str) -> str:
    """A derived string as a text column can hold it: NUL and lone surrogates become U+FFFD.

    Only for what is kept beside the JSON (search text, previews, keys, names
    read from items); the item's JSON keeps the exact value.
    """
    if value.isascii() and "\x00" not in value:
        return value
    return _NOT_COLUMN_TEXT.sub("\ufffd", value)

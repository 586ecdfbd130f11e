"""Input rules (docs/api.md, "Conventions"): ids, limits, pagination, metadata, JSON values.

Every check raises before anything is written, so bad input changes nothing.
"""

import re
from collections.abc import Collection
from typing import Any, Literal, TypeVar, overload

from django.conf import settings
from ulid import ULID

from historyhub.lib import jsonvalues
from historyhub.lib.errors import InvalidInput, PayloadTooLarge

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}")
PAGINATION_MESSAGE = "Pagination requires page >= 1 and pageSize between 1 and 100."
MAX_PAGE = 999_999_999
MAX_PAGE_SIZE = 100
MAX_ID_LENGTH = 200
MAX_NAME_LENGTH = 500
# Control characters (Unicode's Cc: C0, DEL, C1) and the line and paragraph separators: what breaks a line, a
# mail header or a terminal. An action's name holds none (docs/api.md, "Client actions").
CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")

T = TypeVar("T")


def new_session_id() -> str:
    return f"ses_{ULID()}"


def session_id(value: object, field: str = "sessionId") -> str:
    if not isinstance(value, str) or not SESSION_ID.fullmatch(value):
        raise InvalidInput(
            f"{field} must be 1-200 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit."
        )
    return value


def project_id(value: object, field: str = "projectId") -> str:
    """A project's id: the same rules as a session id's."""
    if not isinstance(value, str) or not SESSION_ID.fullmatch(value):
        raise InvalidInput(
            f"{field} must be 1-200 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit."
        )
    return value


def session_key(value: object) -> str:
    """A session's key (historyhub.lib.session_keys): a session id, or a project id and a session id."""
    if isinstance(value, str):
        project, slash, session = value.partition("/")
        if SESSION_ID.fullmatch(project) and (not slash or SESSION_ID.fullmatch(session)):
            return value
    raise InvalidInput("sessionId must be 1-200 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit.")


def identifier(value: object, field: str) -> str:
    """A caller-chosen id (operation, call, item): a string of 1-200 characters."""
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_ID_LENGTH:
        raise InvalidInput(f"{field} must be a string of 1-200 characters.")
    return text(value, field)


def text(value: object, field: str) -> str:
    """A caller's string kept in a text column, which cannot hold NUL or lone surrogates exactly."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string.")
    if not jsonvalues.is_column_text(value):
        raise InvalidInput(f"{field} must not contain NUL characters or unpaired surrogates.")
    return value


def action_name(value: object, field: str = "name") -> str:
    """A client action's name: an item id's rules, and no control characters (a newline would break every mail
    subject and header that names the action)."""
    value = identifier(value, field)
    if CONTROL_CHARACTER.search(value):
        raise InvalidInput(f"{field} must not contain control characters (a newline, a tab …).")
    return value


def without_control_characters(value: str) -> str:
    """An action name an agent's item gave: each control character replaced by U+FFFD, as a decoder marks what
    it cannot read, so the name stays as long, never empty, and visibly altered (docs/api.md, "Client actions")."""
    return CONTROL_CHARACTER.sub("\ufffd", value)


def name(value: object, field: str = "name") -> str:
    """A session's name: text of at most 500 characters (a longer one is refused, never cut)."""
    value = text(value, field)
    if len(value) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{field} must be at most {MAX_NAME_LENGTH} characters; it has {len(value)}.")
    return value


def within_action_limit(value: T, field: str) -> T:
    """A client action's field (arguments, description, comment, response, response schema), at most
    HISTORYHUB_MAX_ACTION_FIELD_BYTES serialised: what a person must read stays readable, and every page that
    shows it stays small."""
    limit = settings.HISTORYHUB_MAX_ACTION_FIELD_BYTES
    size = len((value if isinstance(value, str) else jsonvalues.dumps(value)).encode("utf-8", "surrogatepass"))
    if size > limit:
        raise PayloadTooLarge(f"{field} is {size} bytes serialised; at most {limit} are accepted.")
    return value


def items(values: object, field: str = "items") -> list[tuple[dict[str, Any], str]]:
    """Checks a batch of items; returns each with its stored JSON text."""
    if not isinstance(values, list):
        raise InvalidInput(f"{field} must be an array of items.")
    limit = settings.HISTORYHUB_MAX_ITEMS_PER_REQUEST
    if len(values) > limit:
        raise PayloadTooLarge(f"{field} holds {len(values)} items; at most {limit} are accepted per request.")
    checked = []
    for index, item in enumerate(values):
        if not isinstance(item, dict):
            raise InvalidInput(f"item at index {index} is not an object")
        key = item.get("id")
        if isinstance(key, str) and len(key) > MAX_ID_LENGTH:
            raise InvalidInput(f"item at index {index} has an id longer than {MAX_ID_LENGTH} characters")
        if isinstance(key, str) and not jsonvalues.is_column_text(key):
            raise InvalidInput(f"item at index {index} has an id with a NUL character or an unpaired surrogate")
        try:
            jsonvalues.check_depth(item)
            stored = jsonvalues.dumps(item)
        except ValueError as error:
            raise InvalidInput(f"item at index {index} {error}") from None
        if len(stored.encode("utf-8")) > settings.HISTORYHUB_MAX_ITEM_BYTES:
            raise PayloadTooLarge(
                f"item at index {index} is larger than {settings.HISTORYHUB_MAX_ITEM_BYTES} bytes serialised"
            )
        checked.append((item, stored))
    return checked


def json_value(value: T, field: str, envelope: int = 0) -> T:
    """A caller's JSON value (arguments, an output …) under the intake rules."""
    try:
        jsonvalues.check(value, envelope)
    except ValueError as error:
        raise InvalidInput(f"{field} {error}.") from None
    return value


def metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(entry, (str, int, float, bool)) or entry is None for entry in value.values()
    ):
        raise InvalidInput("metadata must be an object whose values are strings, numbers, booleans or null.")
    return json_value(value, "metadata")


def _whole_number(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,9}", value.strip()):
        return int(value)
    return None


def pagination(page: object, page_size: object, default_size: int = 50) -> tuple[int, int]:
    """(page, pageSize) from query values; anything out of range is the fixed 400."""
    page = 1 if page in (None, "") else _whole_number(page)
    page_size = default_size if page_size in (None, "") else _whole_number(page_size)
    if page is None or page_size is None or not 1 <= page <= MAX_PAGE or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise InvalidInput(PAGINATION_MESSAGE)
    return page, page_size


@overload
def choice(value: object, allowed: Collection[str], field: str, nullable: Literal[False] = False) -> str: ...
@overload
def choice(value: object, allowed: Collection[str], field: str, nullable: bool) -> str | None: ...
def choice(value: object, allowed: Collection[str], field: str, nullable: bool = False) -> str | None:
    """``value`` if it is one of ``allowed`` (or None, when ``nullable``)."""
    if value is None and nullable:
        return None
    if not isinstance(value, str) or value not in allowed:
        names = ", ".join(allowed)
        raise InvalidInput(f"{field} must be one of {names}{' or null' if nullable else ''}.")
    return value

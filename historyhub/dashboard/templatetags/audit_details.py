"""An audit row's details as a person reads them: one key and value a line, not a JSON document."""

import json
import re
from datetime import datetime
from typing import Any

from django import template
from django.utils.dateparse import parse_datetime

register = template.Library()

# A value that is a time with its zone, as the API writes and takes them ("2026-12-01T18:24:00Z").
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)")


@register.filter
def detail_lines(details: Any) -> list[tuple[str, str, datetime | None]]:
    """(key, value, time) for each of ``details``' keys: strings as they are, anything else as compact JSON (a list
    of groups reads ``["finance", "ops"]``); ``time`` is the value read as a time when it is one (an export's
    ``updatedSince``), which the page shows as every time is shown, else None. Details that are not an object are
    one line with no key."""
    if not isinstance(details, dict):
        return [("", _shown(details), None)]
    return [(str(key), _shown(value), _time(value)) for key, value in details.items()]


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not ISO_TIME.fullmatch(value):
        return None
    try:
        return parse_datetime(value)
    except ValueError:
        return None

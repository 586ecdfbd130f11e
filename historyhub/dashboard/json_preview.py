"""An agent's large values on a page, bounded (docs/dashboard.md, "Large arguments and descriptions").

An action's arguments and description may hold a megabyte each; fifty of them
on the approvals page would make a page of a hundred. A page shows the first
``PREVIEW_CHARS`` characters of the pretty JSON (an approvals card the first
``CARD_PREVIEW_CHARS``), and the first ``DESCRIPTION_CHARS`` of a description,
with the whole value's size and **Show all**: a link to the whole value that
htmx swaps in place of the preview (templates/dashboard/fragments/show_all.html).
The JSON preview is indented straight from the stored compact text, token by
token, and stops at the bound: a megabyte costs what its first 20 KB cost, and
is not parsed for it; given only the start of the text (``of_start``), it shows
the same.
"""

import re
from dataclasses import dataclass

from historyhub.lib import hidden_characters, jsonvalues

PREVIEW_CHARS = 20_000
# An approvals card: fifty of them make a page (its arguments whole up to here get the tree and the edit box).
CARD_PREVIEW_CHARS = 2_000
# A description's Markdown, on every card.
DESCRIPTION_CHARS = 2_000
INDENT = "  "
# A JSON string (escapes and all; one the start of a text cuts short runs to its end), one of the structural
# characters, a number or literal, white space.
TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|[{}\[\],:]|[^\s{}\[\],:"]+|\s+', re.DOTALL)


@dataclass(frozen=True)
class JsonPreview:
    text: str  # the pretty JSON, whole or its first PREVIEW_CHARS characters
    complete: bool
    size: int  # bytes of the whole value as compact UTF-8 JSON
    hidden_characters: bool  # whether the whole value holds a character hidden_characters makes visible

    @property
    def editable(self):
        """The whole pretty JSON with hidden characters as escapes, for a box a person may edit and send back."""
        return hidden_characters.escaped_json(self.text) if self.complete else None


def escaped(stored):
    """All of stored JSON text, indented, its hidden characters as escapes (it reads back as the same value)."""
    return hidden_characters.escaped_json(indented(stored)[0])


def of_stored(text, limit=PREVIEW_CHARS):
    """The preview of JSON text as this application stores it."""
    pretty, complete = indented(text, limit)
    return JsonPreview(pretty, complete, len(text.encode("utf-8")), hidden_characters.contains(text))


def of_value(value, limit=PREVIEW_CHARS):
    return of_stored(jsonvalues.dumps(value), limit)


def of_start(start, size, hidden, limit=PREVIEW_CHARS):
    """The preview of stored JSON text of ``size`` bytes from its first ``limit + 1`` characters or more (all of
    them when shorter), given whether the whole holds a hidden character: what ``of_stored`` shows of the whole.
    Compact JSON indented only grows, so more than ``limit`` characters of it fill the preview."""
    pretty, complete = indented(start, limit)
    return JsonPreview(pretty, complete and len(start.encode("utf-8")) == size, size, hidden)


@dataclass(frozen=True)
class TextPreview:
    text: str  # the text, whole or its first DESCRIPTION_CHARS characters
    complete: bool
    size: int  # bytes of the whole text as UTF-8


def of_text(start, size, limit=DESCRIPTION_CHARS):
    """The preview of a text of ``size`` bytes from its first ``limit`` characters or more."""
    return TextPreview(start[:limit], len(start) <= limit and len(start.encode("utf-8")) == size, size)


def indented(text, limit=None):
    """JSON text indented as ``json.dumps(indent=2)`` would: (its first ``limit`` characters, whether that is all)."""
    parts, length, depth, opened = [], 0, 0, False
    for match in TOKEN.finditer(text):
        token = match.group()
        if token.isspace():
            continue
        if token in ("}", "]"):
            depth -= 1
            piece = token if opened else f"\n{INDENT * depth}{token}"
            opened = False
        else:
            # What follows an opening bracket starts a line of its own, unless it closes it again ("{}").
            piece = f"\n{INDENT * depth}" if opened else ""
            opened = token in ("{", "[")
            if opened:
                depth += 1
                piece += token
            elif token == ",":
                piece += f",\n{INDENT * depth}"
            elif token == ":":
                piece += ": "
            else:
                piece += token
        if limit is not None and length + len(piece) > limit:
            parts.append(piece[: limit - length])
            return "".join(parts), False
        parts.append(piece)
        length += len(piece)
    return "".join(parts), True

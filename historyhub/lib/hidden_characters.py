"""Characters a person cannot see, or that change how the text around them reads, made visible
(docs/dashboard.md, "Hidden characters").

An agent's text can hold a right-to-left override that shows
``\\u202e55 5555 5551 0202 BKUB 33BG`` as the IBAN ``GB33 BUKB 2020 1555 5555 55``,
or a zero-width space that splits a word no one sees split. Every page shows
such a character as a marker, ``⟨U+202E⟩``, and the arguments box as a JSON
escape, ``\\u202e``, which reads back as the very same character: what a person
sees is what they approve.
"""

import re
import unicodedata
from typing import TypeVar, cast

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeData, SafeString, mark_safe

# Unicode's format characters (category Cf, as of Unicode 15.1: direction controls, zero-width
# characters, the soft hyphen, tag characters …); the other default-ignorable code points but the
# variation selectors, which only pick a glyph (an emoji's colour); line and paragraph separators;
# control characters but tab, newline and carriage return (HIDDEN adds a carriage return alone); and
# the lone surrogates a JSON value may hold.
HIDDEN_CHARACTER = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ud800-\udfff\ufeff"
    "\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e00ff\U000e01f0-\U000e0fff]"
)
HIDDEN = re.compile(f"{HIDDEN_CHARACTER.pattern}|\r(?!\n)")
LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")
ASCII_HIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

T = TypeVar("T")


def contains(*texts: object) -> bool:
    """Whether any of these strings holds a hidden character (anything else is ignored)."""
    return any(isinstance(text, str) and holds_hidden(text) for text in texts)


def holds_hidden(text: str) -> bool:
    """Quick on a megabyte of arguments: re scans slowly for one of many ranges, and a text's
    distinct characters are few."""
    if "\r" in text and LONE_CARRIAGE_RETURN.search(text):
        return True
    if text.isascii():
        return ASCII_HIDDEN.search(text) is not None
    return HIDDEN_CHARACTER.search("".join(set(text))) is not None


def marker(character: str) -> str:
    return f"⟨U+{ord(character):04X}⟩"


def description(character: str) -> str:
    return unicodedata.name(character, "") or ("a surrogate" if "\ud800" <= character <= "\udfff" else "a control")


def labelled(text: T) -> T:
    """The text with each hidden character as its marker: for attributes and titles, which hold no markup."""
    if not isinstance(text, str):
        return text
    return cast(T, HIDDEN.sub(lambda match: marker(match.group()), text))


def marked(text: object) -> SafeString:
    """The text escaped for HTML, each hidden character a marker that stands out and names it."""
    if not isinstance(text, str):
        return conditional_escape(text if isinstance(text, SafeData) else str(text))
    pieces: list[str] = []
    start = 0
    for match in HIDDEN.finditer(text):
        character = match.group()
        pieces.append(conditional_escape(text[start : match.start()]))
        pieces.append(
            format_html('<mark class="hidden-char" title="{}">{}</mark>', description(character), marker(character))
        )
        start = match.end()
    pieces.append(conditional_escape(text[start:]))
    # Every piece is escaped or built by format_html: the agent's text stays text.
    return mark_safe("".join(pieces))


def json_escape(character: str) -> str:
    """The JSON escape of a character: a pair of UTF-16 escapes beyond the Basic Multilingual Plane."""
    code = ord(character)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def escaped_json(text: str) -> str:
    """JSON text with every hidden character escaped: it reads back as the same value.

    JSON holds such a character only inside a string, where its escape stands for it exactly.
    """
    return HIDDEN.sub(lambda match: json_escape(match.group()), text)

"""What the sessions page shows of where a search's ``q`` was found (docs/dashboard.md, "Reading"): a few words of
the newest message that holds it, or the metadata value that does, with each occurrence of ``q`` in <mark>.

The sessions are the ones ``sessions.search`` found (docs/search.md); the message is looked up with the same
``icontains`` (``matching.newest_messages_holding``). Here ``q`` is found again in Python, in any case as
``re.IGNORECASE`` folds it, which finds at least what either database's comparison found.
"""

import re
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from historyhub.dashboard import markdown
from historyhub.history import matching
from historyhub.lib import hidden_characters, jsonvalues

# Characters shown before and after the first occurrence; the raw text read around it, Markdown and all.
BEFORE, AFTER = 80, 120
READ_AROUND = 600


@dataclass(frozen=True)
class Match:
    text: SafeString
    metadata_key: str | None = None  # the key whose value holds q; None: a message does


def marked(text, q):
    """``text`` escaped, each occurrence of ``q`` (any case) in <mark class="match">, hidden characters as markers."""
    text = text if isinstance(text, str) else str(text)
    pieces, start = [], 0
    for found in _pattern(q).finditer(text):
        pieces.append(hidden_characters.marked(text[start : found.start()]))
        pieces.append(format_html('<mark class="match">{}</mark>', hidden_characters.marked(found.group())))
        start = found.end()
    pieces.append(hidden_characters.marked(text[start:]))
    # Every piece is escaped by hidden_characters.marked or built by format_html: the agent's text stays text.
    return mark_safe("".join(pieces))  # noqa: S308


def around(text, q):
    """A few words of ``text`` around the first occurrence of ``q``, read as plain text, … where it is cut."""
    pattern = _pattern(q)
    found = pattern.search(text)
    middle = found.start() if found is not None else 0
    # Markdown's marks are taken out of a window only: a 65,000-character message is not parsed for a snippet.
    first, last = max(0, middle - READ_AROUND), middle + len(q) + READ_AROUND
    window = text[first:last]
    plain = markdown.plain_text(window)
    if found is not None and pattern.search(plain) is None:
        # q holds Markdown's own marks (``**``, a backtick): the raw text is what holds it.
        plain = " ".join(window.split())
    found = pattern.search(plain)
    start, stop = (found.start(), found.end()) if found is not None else (0, 0)
    begin = _word_start(plain, start - BEFORE, start) if start > BEFORE else 0
    end = _word_end(plain, stop + AFTER, stop) if stop + AFTER < len(plain) else len(plain)
    before = "…" if begin > 0 or first > 0 else ""
    after = "…" if end < len(plain) or last < len(text) else ""
    return format_html("{}{}{}", before, marked(plain[begin:end], q), after)


def matches(sessions, q):
    """{session key: Match} for the sessions a search by ``q`` found, where a person can see why: the newest
    message holding ``q``, else a metadata value that does. A match in the name, id or agent shows in place."""
    texts = matching.newest_messages_holding([session.pk for session in sessions], q)
    found = {}
    for session in sessions:
        if session.pk in texts:
            found[session.pk] = Match(around(texts[session.pk], q))
            continue
        for key, value in session.metadata.items():
            shown = value if isinstance(value, str) else jsonvalues.dumps(value)
            if _pattern(q).search(shown):
                found[session.pk] = Match(around(shown, q), metadata_key=key)
                break
    return found


def _pattern(q):
    return re.compile(re.escape(q), re.IGNORECASE)


def _word_start(text, start, limit):
    """``start`` moved on to the next word's first character, not past ``limit``."""
    space = text.find(" ", start, limit)
    return space + 1 if space != -1 else start


def _word_end(text, stop, limit):
    """``stop`` moved back to the end of the word before it, not before ``limit``."""
    space = text.rfind(" ", limit, stop)
    return space if space != -1 else stop

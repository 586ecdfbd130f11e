"""Long agent text folded: a message or a tool output over ``FOLD_CHARS`` characters or ``FOLD_LINES`` lines
shows its start, and all of it behind **Show all**, a <details> that needs no script (docs/dashboard.md,
"Reading"). A 65,000-character message then costs the page the height of its first 2,000 characters.
"""

from dataclasses import dataclass

FOLD_CHARS = 2_000
FOLD_LINES = 30
# A start cut at a space or line break rather than inside a word, unless the last one is further back than this.
WORD_BREAK_REACH = 200


@dataclass(frozen=True)
class Fold:
    whole: str
    start: str  # what shows while folded: the whole text when it is short enough

    @property
    def is_folded(self):
        return self.start != self.whole

    @property
    def chars(self):
        return len(self.whole)

    @property
    def lines(self):
        return self.whole.rstrip("\n").count("\n") + 1


def fold(text):
    """``text``, with the start a folded page shows: at most FOLD_LINES lines and FOLD_CHARS characters."""
    text = text if isinstance(text, str) else ""
    body = text.rstrip()
    start = "\n".join(body.split("\n", FOLD_LINES)[:FOLD_LINES])
    if len(start) > FOLD_CHARS:
        cut = max(start.rfind(" ", 0, FOLD_CHARS), start.rfind("\n", 0, FOLD_CHARS))
        start = start[: cut if cut > FOLD_CHARS - WORD_BREAK_REACH else FOLD_CHARS]
    return Fold(whole=text, start=text if start == body else start.rstrip())

"""Names matched against globs (``fnmatch`` patterns, case-sensitive: ``*``, ``?``, ``[seq]``), the one rule
approval policies and notification channels share. What an empty list means differs between them, so every caller
says it: a policy with no globs governs nothing, a channel with none listens to everything."""

from collections.abc import Iterable
from fnmatch import fnmatchcase


def matches(name: str, globs: Iterable[str], *, empty_matches_all: bool) -> bool:
    """Whether ``name`` matches one of ``globs``; an empty list matches every name when ``empty_matches_all``,
    none otherwise."""
    globs = list(globs)
    if not globs:
        return empty_matches_all
    return any(fnmatchcase(name, glob) for glob in globs)
